import { useEffect } from "react";

const NOT_TEXT = ["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"];

/** Whether keys typed now go into a text field (where shortcuts must not act). */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  if (tag === "INPUT") return !NOT_TEXT.includes((el as HTMLInputElement).type);
  return tag === "TEXTAREA" || tag === "SELECT" || (el as HTMLElement).isContentEditable;
}

/** Focuses the page's search field (the first visible element marked data-search). */
export function focusSearch(): boolean {
  const el = Array.from(document.querySelectorAll<HTMLElement>("[data-search]")).find((e) => e.offsetParent !== null || e.getClientRects().length > 0) ??
    document.querySelector<HTMLElement>("[data-search]");
  if (!el) return false;
  el.focus();
  if (el instanceof HTMLInputElement) el.select();
  return true;
}

/** `/` and Ctrl/Cmd+K focus the search field of the current page. */
export function useGlobalShortcuts() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const k = e.key.toLowerCase();
      if ((e.ctrlKey || e.metaKey) && k === "k") {
        if (focusSearch()) e.preventDefault();
        return;
      }
      if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(document.activeElement)) {
        if (focusSearch()) e.preventDefault();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
