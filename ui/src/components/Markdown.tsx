// A small, safe Markdown renderer: it builds React elements (never HTML strings), so any HTML in
// the source shows as text. Supports headings, paragraphs, lists, block quotes, rules, fenced code,
// inline code, bold and italic; links show their text (the URL as a tooltip) and do not navigate.
import type { ReactNode } from "react";

type Block =
  | { kind: "heading"; level: number; text: string }
  | { kind: "para"; text: string }
  | { kind: "list"; ordered: boolean; items: string[] }
  | { kind: "quote"; text: string }
  | { kind: "code"; lang: string; text: string }
  | { kind: "rule" };

export function parseBlocks(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ kind: "para", text: para.join(" ") });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)\s*([\w-]*)\s*$/.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      blocks.push({ kind: "code", lang: fence[2] ?? "", text: body.join("\n") });
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      blocks.push({ kind: "heading", level: h[1]!.length, text: h[2]! });
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      blocks.push({ kind: "rule" });
      continue;
    }
    const li = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (li) {
      flush();
      const ordered = li[2] !== undefined;
      const last = blocks[blocks.length - 1];
      if (last && last.kind === "list" && last.ordered === ordered) last.items.push(li[3]!);
      else blocks.push({ kind: "list", ordered, items: [li[3]!] });
      continue;
    }
    const q = /^\s*>\s?(.*)$/.exec(line);
    if (q) {
      flush();
      const last = blocks[blocks.length - 1];
      if (last && last.kind === "quote") last.text += " " + q[1];
      else blocks.push({ kind: "quote", text: q[1]! });
      continue;
    }
    // A continuation line of a list item (indented) joins the item.
    const last = blocks[blocks.length - 1];
    if (para.length === 0 && last && last.kind === "list" && /^\s{2,}/.test(line)) {
      last.items[last.items.length - 1] += " " + line.trim();
      continue;
    }
    para.push(line.trim());
  }
  flush();
  return blocks;
}

const INLINE = /(`+)([^`]+?)\1|\*\*([^*]+?)\*\*|__([^_]+?)__|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)\)/g;

export function renderInline(text: string, keyPrefix = "i"): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const key = `${keyPrefix}-${n++}`;
    if (m[2] !== undefined) out.push(<code key={key}>{m[2]}</code>);
    else if (m[3] !== undefined || m[4] !== undefined) out.push(<strong key={key}>{renderInline(m[3] ?? m[4]!, key)}</strong>);
    else if (m[5] !== undefined || m[6] !== undefined) out.push(<em key={key}>{renderInline(m[5] ?? m[6]!, key)}</em>);
    else if (m[7] !== undefined)
      out.push(
        <span key={key} className="md-link" title={m[8]}>
          {renderInline(m[7], key)}
        </span>,
      );
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function Markdown({ source, testId }: { source: string; testId?: string }) {
  const blocks = parseBlocks(source);
  return (
    <div className="markdown" data-testid={testId}>
      {blocks.map((b, i) => {
        const k = `b${i}`;
        switch (b.kind) {
          case "heading": {
            const Tag = `h${Math.min(6, b.level + 1)}` as "h2";
            return <Tag key={k}>{renderInline(b.text, k)}</Tag>;
          }
          case "para":
            return <p key={k}>{renderInline(b.text, k)}</p>;
          case "list": {
            const items = b.items.map((it, j) => <li key={j}>{renderInline(it, `${k}-${j}`)}</li>);
            return b.ordered ? <ol key={k}>{items}</ol> : <ul key={k}>{items}</ul>;
          }
          case "quote":
            return <blockquote key={k}>{renderInline(b.text, k)}</blockquote>;
          case "code":
            return (
              <pre key={k} className="md-code">
                <code>{b.text}</code>
              </pre>
            );
          case "rule":
            return <hr key={k} />;
        }
      })}
    </div>
  );
}
