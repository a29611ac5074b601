import { useEffect, useState } from "react";

export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return v;
}

/**
 * Keyboard navigation inside a list of rows marked `data-row`: ↑/↓/Home/End/PageUp/PageDown move
 * the focus; Enter is handled by the row itself.
 */
export function onRowKeyDown(e: React.KeyboardEvent<HTMLElement>) {
  const keys = ["ArrowDown", "ArrowUp", "Home", "End", "PageDown", "PageUp"];
  if (!keys.includes(e.key)) return;
  const rows = Array.from(e.currentTarget.querySelectorAll<HTMLElement>("[data-row]"));
  if (rows.length === 0) return;
  const current = rows.findIndex((r) => r === document.activeElement || r.contains(document.activeElement));
  let next = current;
  if (e.key === "ArrowDown") next = Math.min(rows.length - 1, current + 1);
  else if (e.key === "ArrowUp") next = Math.max(0, current - 1);
  else if (e.key === "Home") next = 0;
  else if (e.key === "End") next = rows.length - 1;
  else if (e.key === "PageDown") next = Math.min(rows.length - 1, current + 10);
  else if (e.key === "PageUp") next = Math.max(0, current - 10);
  e.preventDefault();
  rows[next]?.focus();
}
