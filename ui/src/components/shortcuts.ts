import { useEffect } from "react";

import { SEARCH_EVERYWHERE_ID } from "../features/search/SearchEverywhere";

const NOT_TEXT = ["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"];

/** Whether keys typed now go into a text field (where shortcuts must not act). */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  if (tag === "INPUT") return !NOT_TEXT.includes((el as HTMLInputElement).type);
  return tag === "TEXTAREA" || tag === "SELECT" || (el as HTMLElement).isContentEditable;
}

const FIELDS = 'input:not([type="hidden"]):not([type="checkbox"]):not([type="radio"]):not([type="button"]):not([type="submit"]):not(:disabled), select:not(:disabled), textarea:not(:disabled)';

const visible = (e: HTMLElement) => e.offsetParent !== null || e.getClientRects().length > 0;

/** Focuses the page's search field (the first visible element marked data-search), else the
 * page's first field (Settings: the root; the prompt preview: its session). */
export function focusSearch(): boolean {
  const content = document.getElementById("content") ?? document.body;
  const searches = Array.from(document.querySelectorAll<HTMLElement>("[data-search]"));
  const fields = Array.from(content.querySelectorAll<HTMLElement>(FIELDS));
  const el = searches.find(visible) ?? searches[0] ?? fields.find(visible) ?? fields[0];
  if (!el) return false;
  el.focus();
  if (el instanceof HTMLInputElement) el.select();
  return true;
}

/** Focuses the header's search box (every memory and past conversation), if it is there. */
function focusEverywhere(): boolean {
  const el = document.getElementById(SEARCH_EVERYWHERE_ID);
  if (!(el instanceof HTMLInputElement)) return false;
  el.focus();
  el.select();
  return true;
}

/** `/` focuses the search field of the current page; Ctrl/Cmd+K the header's search box (the
 * page's search where there is none, e.g. the welcome page). */
export function useGlobalShortcuts() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const k = e.key.toLowerCase();
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && k === "k") {
        if (focusEverywhere() || focusSearch()) e.preventDefault();
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
