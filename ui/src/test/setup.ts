import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach, expect } from "vitest";

import { takeMisses } from "./render";

// A loaded CI machine can take more than the default second to resolve a lazy chunk (recharts):
// findBy/waitFor wait up to 10 s; a test still fails as soon as the wait runs out.
configure({ asyncUtilTimeout: 10000 });

// jsdom has no layout: give the virtual scroll container a viewport so the virtualizer renders rows.
Object.defineProperty(HTMLElement.prototype, "clientHeight", {
  configurable: true,
  get(this: HTMLElement) {
    return this.hasAttribute("data-virtual-scroll") ? 600 : 0;
  },
});
Object.defineProperty(HTMLElement.prototype, "clientWidth", {
  configurable: true,
  get(this: HTMLElement) {
    return this.hasAttribute("data-virtual-scroll") ? 1000 : 0;
  },
});
Object.defineProperty(HTMLElement.prototype, "scrollHeight", {
  configurable: true,
  get(this: HTMLElement) {
    if (!this.hasAttribute("data-virtual-scroll")) return 0;
    const inner = this.firstElementChild as HTMLElement | null;
    return inner ? parseFloat(inner.style.height) || 0 : 0;
  },
});
// jsdom does not scroll: keep scrollTop per element and fire "scroll" so the virtualizer follows.
const scrollTops = new WeakMap<Element, number>();
Object.defineProperty(HTMLElement.prototype, "scrollTop", {
  configurable: true,
  get(this: HTMLElement) {
    return scrollTops.get(this) ?? 0;
  },
  set(this: HTMLElement, v: number) {
    scrollTops.set(this, Math.max(0, v));
  },
});
Element.prototype.scrollTo = function scrollTo(this: HTMLElement, a?: ScrollToOptions | number, b?: number) {
  const top = typeof a === "number" ? b : a?.top;
  if (typeof top === "number") this.scrollTop = top;
  // Browsers fire "scroll" asynchronously, never inside React's commit phase.
  setTimeout(() => this.dispatchEvent(new Event("scroll")), 0);
} as Element["scrollTo"];
if (!Element.prototype.scrollIntoView) Element.prototype.scrollIntoView = () => {};
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => {},
      removeEventListener: () => {},
      addListener: () => {},
      removeListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

afterEach(() => {
  cleanup();
  // A request the console was never asked during the recording: add it to fixtures/script.json.
  expect(takeMisses()).toEqual([]);
  window.location.hash = "";
});
