// Inline SVG icons (no icon font, no remote resources).
type Props = { name: keyof typeof PATHS; size?: number; className?: string; title?: string };

const PATHS = {
  agents: "M8 8a3 3 0 1 0 0-6 3 3 0 0 0 0 6Zm-5 6c0-2.8 2.2-4.5 5-4.5s5 1.7 5 4.5v.5H3v-.5Z",
  sessions: "M2 3.5A1.5 1.5 0 0 1 3.5 2h9A1.5 1.5 0 0 1 14 3.5v6a1.5 1.5 0 0 1-1.5 1.5H7l-3 3v-3h-.5A1.5 1.5 0 0 1 2 9.5v-6Z",
  files: "M4 1.5h5l3.5 3.5v9.5H4V1.5Zm5 0V5h3.5M6 8h5M6 10.5h5",
  settings:
    "M8 5.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5Zm5.4 3.3.1-.8-.1-.8 1.4-1.1-1.4-2.4-1.7.6a5 5 0 0 0-1.3-.8L10.1 1.7H7.3L7 3.5a5 5 0 0 0-1.3.8L4 3.7 2.6 6.1 4 7.2 3.9 8l.1.8-1.4 1.1L4 12.3l1.7-.6c.4.3.8.6 1.3.8l.3 1.8h2.8l.3-1.8c.5-.2.9-.5 1.3-.8l1.7.6 1.4-2.4-1.4-1.1Z",
  chart: "M2 14h12M3.5 11.5v-3M6.5 11.5v-7M9.5 11.5V7M12.5 11.5v-9",
  globe: "M8 1.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13Zm-6.5 6.5h13M8 1.5c2 2 2 11 0 13M8 1.5c-2 2-2 11 0 13",
  warning: "M8 1.8 15 14H1L8 1.8Zm0 4.2v4m0 1.6v.4",
  copy: "M5.5 5.5h7v8h-7v-8Zm-2 5v-8h7",
  check: "m3 8.5 3 3 7-7",
  search: "M7 12a5 5 0 1 0 0-10 5 5 0 0 0 0 10Zm3.6-1.4L14 14",
  recall: "M6.5 11.5a4.5 4.5 0 1 1 0-9 4.5 4.5 0 0 1 0 9Zm3.3-1.2L14 14.5M6.5 4.5l.6 1.4 1.4.6-1.4.6-.6 1.4-.6-1.4-1.4-.6 1.4-.6.6-1.4Z",
  stop: "M4.5 4.5h7v7h-7v-7Z",
  trash: "M2.5 4h11M6 4V2.5h4V4m-6 0 .7 9.5h6.6L12 4",
  chevron: "m6 3.5 4.5 4.5L6 12.5",
  sort: "M5 3v10m0 0-2.5-2.5M5 13l2.5-2.5M11 13V3m0 0L8.5 5.5M11 3l2.5 2.5",
  folder: "M1.5 3.5h4.5l1.5 1.5h7v8h-13v-9.5Z",
  refresh: "M13.5 8a5.5 5.5 0 1 1-1.6-3.9M13.5 2v3.5H10",
  error: "M8 1.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13Zm0 3.5v3.5m0 2.2v.3",
  scissors: "M4.5 5.5a2 2 0 1 0 0-4 2 2 0 0 0 0 4Zm0 9a2 2 0 1 0 0-4 2 2 0 0 0 0 4ZM6 4.7 14 12M6 11.3 14 4",
  pencil: "M10.8 2.7 13.3 5.2 5.6 12.9 2.5 13.5l.6-3.1 7.7-7.7ZM9.3 4.2l2.5 2.5",
  arrowUp: "M8 13V3m0 0L4 7m4-4 4 4",
  arrowDown: "M8 3v10m0 0-4-4m4 4 4-4",
  history: "M2.5 8a5.5 5.5 0 1 0 1.6-3.9M2.5 2v3.5H6M8 5v3l2 1.5",
  undo: "M5.5 3 2.5 6l3 3M2.5 6h7a3.5 3.5 0 0 1 0 7H7",
  redo: "m10.5 3 3 3-3 3M13.5 6h-7a3.5 3.5 0 0 0 0 7H9",
  close: "m4 4 8 8m0-8-8 8",
  origin: "M4.5 2a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3Zm0 3v4.5a3 3 0 0 0 3 3h6m0 0-2-2m2 2-2 2",
  // An eraser: forget for good.
  forget: "M9.5 2 14 6.5 7 13.5H4.5L2 11l7.5-9ZM5.5 6l4.5 4.5M7 13.5h7",
  tool: "M10.5 1.5a3.5 3.5 0 0 0-3.3 4.6L1.8 11.5l2.7 2.7 5.4-5.4a3.5 3.5 0 0 0 4.6-3.3l-2 2-2.3-.5-.5-2.3 2-2-.2-.2Z",
};

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16, className, title }: Props) {
  return (
    <svg
      className={className ? `icon ${className}` : "icon"}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.4}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden={title ? undefined : true}
      role={title ? "img" : undefined}
    >
      {title ? <title>{title}</title> : null}
      <path d={PATHS[name]} />
    </svg>
  );
}
