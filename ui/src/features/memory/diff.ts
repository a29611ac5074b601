// A word diff of two versions of an entry, for the History panel: what was removed and added.
// Presentation only (which words changed); what the change did is the console's answer.

export type Segment = { kind: "same" | "del" | "ins"; text: string };

// Words, runs of spaces, and CJK characters and punctuation one by one (Chinese has no spaces,
// so a changed character should not mark the whole sentence).
const TOKEN = /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]+|\s+/gu;

export function tokens(s: string): string[] {
  return s.match(TOKEN) ?? [];
}

/** Longer inputs are shown as one removed and one added run (the table would be too big). */
const MAX_TOKENS = 1500;

/** Segments that read `before` when `ins` is skipped and `after` when `del` is skipped. */
export function diffWords(before: string, after: string): Segment[] {
  if (before === after) return before ? [{ kind: "same", text: before }] : [];
  const a = tokens(before);
  const b = tokens(after);
  if (a.length * b.length > MAX_TOKENS * MAX_TOKENS || a.length > MAX_TOKENS || b.length > MAX_TOKENS) {
    return [
      ...(before ? [{ kind: "del" as const, text: before }] : []),
      ...(after ? [{ kind: "ins" as const, text: after }] : []),
    ];
  }
  // Longest common subsequence, table from the end.
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const lcs = new Uint16Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: Segment[] = [];
  const push = (kind: Segment["kind"], text: string) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      push("same", a[i]!);
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      // Removed before added where they meet, as people read a replacement.
      push("del", a[i]!);
      i++;
    } else {
      push("ins", b[j]!);
      j++;
    }
  }
  return out;
}
