// The lines of two texts that differ, for reading a replayed prompt beside today's. Display only:
// which lines are in one text and not in the other, in order (longest common subsequence).

export type LineOp = { kind: "same" | "del" | "add"; line: string };

/** Longer inputs are compared as sets of lines (the table would be too big). */
const MAX_LINES = 3000;

export function diffLines(before: string, after: string): LineOp[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  if (a.length > MAX_LINES || b.length > MAX_LINES) {
    const inA = new Set(a);
    const inB = new Set(b);
    return [
      ...a.map((line): LineOp => ({ kind: inB.has(line) ? "same" : "del", line })),
      ...b.filter((line) => !inA.has(line)).map((line): LineOp => ({ kind: "add", line })),
    ];
  }
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: LineOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: "same", line: a[i]! });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      out.push({ kind: "del", line: a[i]! });
      i++;
    } else {
      out.push({ kind: "add", line: b[j]! });
      j++;
    }
  }
  return out;
}

/** Runs of unchanged lines folded into one count, the changed lines kept. */
export type DiffRow = { kind: "del" | "add"; line: string } | { kind: "same"; count: number };

export function foldSame(ops: LineOp[]): DiffRow[] {
  const out: DiffRow[] = [];
  for (const op of ops) {
    const last = out[out.length - 1];
    if (op.kind === "same") {
      if (last && last.kind === "same") last.count++;
      else out.push({ kind: "same", count: 1 });
    } else out.push({ kind: op.kind, line: op.line });
  }
  return out;
}
