// The memory rules of SPEC §3/§8 in TypeScript, for the fake backend and the UI's instant
// feedback. The Rust core stays the authority; these mirror it.

/** Unicode scalar values, as the Rust core counts characters. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** mem0's `GET /memories` page (oryx-core mem0.rs LOAD_LIMIT): a full page may hide more. */
export const MEM0_LIST_LIMIT = 1000;

export const CORE_HEADING = "## 核心记忆";
export const ARCHIVAL_HEADING = "## 归档记忆";

/** One safe line: CR/LF → space, runs of spaces collapse, trim, headings neutralised. */
export function sanitizeContent(raw: string): string {
  let out = "";
  for (const ch of raw) {
    const c = ch === "\r" || ch === "\n" ? " " : ch;
    if (c === " " && out.endsWith(" ")) continue;
    out += c;
  }
  return out.trim().split(CORE_HEADING).join("「核心记忆」").split(ARCHIVAL_HEADING).join("「归档记忆」");
}

export function renderLine(timestamp: string | null, content: string): string {
  return timestamp ? `- [${timestamp}] ${content}` : `- ${content}`;
}

export type WindowResult = { firstInWindow: number; text: string; newestCut: boolean };

/** The longest run of the newest lines that fit in `limit` characters joined by "\n". */
export function computeWindow(lines: string[], limit: number): WindowResult {
  let used = 0;
  let first = lines.length;
  for (let i = lines.length - 1; i >= 0; i--) {
    const join = first !== lines.length ? 1 : 0;
    const cost = charCount(lines[i]!) + join;
    if (used + cost > limit) break;
    used += cost;
    first = i;
  }
  if (first === lines.length && lines.length > 0 && limit > 0) {
    const newest = Array.from(lines[lines.length - 1]!);
    const keep = Math.max(0, limit - 1);
    return { firstInWindow: lines.length - 1, text: "…" + newest.slice(Math.max(0, newest.length - keep)).join(""), newestCut: true };
  }
  return { firstInWindow: first, text: lines.slice(first).join("\n"), newestCut: false };
}

/** recall_memory's rule: case-insensitive substring of the content. */
export function matchesKeyword(content: string, keyword: string): boolean {
  const k = keyword.trim().toLowerCase();
  return k === "" ? true : content.toLowerCase().includes(k);
}

/** The prompt's tokenizer-free estimate (oryx-api prompt.rs). */
export function estimateTokens(text: string): number {
  let cjk = 0;
  let other = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const isCjk =
      (c >= 0x3000 && c <= 0x303f) ||
      (c >= 0x3040 && c <= 0x30ff) ||
      (c >= 0x3400 && c <= 0x4dbf) ||
      (c >= 0x4e00 && c <= 0x9fff) ||
      (c >= 0xac00 && c <= 0xd7af) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xff00 && c <= 0xffef) ||
      (c >= 0x20000 && c <= 0x2fa1f);
    if (isCjk) cjk++;
    else other++;
  }
  return cjk + Math.ceil(other / 4);
}
