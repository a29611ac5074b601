import { flexRender, type Header } from "@tanstack/react-table";

/** A column whose definition says `meta: { num: true }` holds numbers (right-aligned). */
export function isNumColumn(c: { columnDef: { meta?: unknown } }): boolean {
  return !!(c.columnDef.meta as { num?: boolean } | undefined)?.num;
}

/**
 * A header cell of a TanStack table: a button that sorts by the column (▲/▼ mark, `aria-sort`),
 * or the plain header where the column does not sort; numeric columns (`meta.num`) get `num`.
 */
export function SortableHead<T>({ header: h, className, testId }: { header: Header<T, unknown>; className?: string; testId?: string }) {
  const sorted = h.column.getIsSorted();
  const num = isNumColumn(h.column);
  const cls = [className, num ? "num" : ""].filter(Boolean).join(" ") || undefined;
  const label = flexRender(h.column.columnDef.header, h.getContext());
  return (
    <th scope="col" className={cls} aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}>
      {h.column.getCanSort() ? (
        <button type="button" className="th-sort" onClick={h.column.getToggleSortingHandler()} data-testid={testId}>
          {label}
          <span className="sort-mark" aria-hidden="true">
            {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}
          </span>
        </button>
      ) : (
        label
      )}
    </th>
  );
}
