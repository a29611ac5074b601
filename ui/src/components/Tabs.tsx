import { useRef } from "react";

export type TabDef<K extends string> = { key: K; label: string; href: string };

/** Link tabs (routes), with ←/→ to move between them as in an ARIA tablist. */
export function Tabs<K extends string>({ tabs, active }: { tabs: TabDef<K>[]; active: K }) {
  const ref = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const links = Array.from(ref.current?.querySelectorAll<HTMLAnchorElement>("a") ?? []);
    const i = links.findIndex((l) => l === document.activeElement);
    const next = links[(i + (e.key === "ArrowRight" ? 1 : links.length - 1)) % links.length];
    if (next) {
      e.preventDefault();
      next.focus();
      next.click();
    }
  };
  return (
    <div className="tabs" role="tablist" ref={ref} onKeyDown={onKeyDown}>
      {tabs.map((t) => (
        <a
          key={t.key}
          role="tab"
          href={t.href}
          aria-selected={t.key === active}
          tabIndex={t.key === active ? 0 : -1}
          className={t.key === active ? "tab active" : "tab"}
          data-testid={`tab-${t.key}`}
        >
          {t.label}
        </a>
      ))}
    </div>
  );
}
