import { describe, expect, it } from "vitest";

// The stylesheet as written (tests run without CSS processing): read from disk by Node.
const fsModule = "node:fs";
const fs = (await import(/* @vite-ignore */ fsModule)) as { readFileSync(p: string, encoding: "utf8"): string };
const cwd = (globalThis as unknown as { process: { cwd(): string } }).process.cwd();
const css = fs.readFileSync(`${cwd}/src/styles/index.css`, "utf8");

// Helper text (--text-3) must stay readable on every surface of both themes (#18 item 21: it was
// 4.40:1 on white). WCAG 2 contrast from the colours the stylesheet declares.

function block(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  const body = css.slice(start, css.indexOf("}", start));
  return Object.fromEntries(Array.from(body.matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})/gi), (m: RegExpMatchArray) => [m[1]!, m[2]!]));
}

function luminance(hex: string): number {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const SURFACES = ["bg", "bg-elev", "bg-sunken", "bg-hover", "sidebar", "out-bg"];

describe("helper text contrast", () => {
  for (const [theme, selector] of [
    ["light", '[data-theme="light"]'],
    ["dark", '[data-theme="dark"]'],
  ] as const) {
    it(`is at least 4.5:1 on every ${theme} surface`, () => {
      const vars = block(selector);
      expect(vars["text-3"]).toBeDefined();
      for (const s of SURFACES) if (vars[s]) expect(contrast(vars["text-3"]!, vars[s]!), `${theme} --text-3 on --${s}`).toBeGreaterThanOrEqual(4.5);
    });
  }
});
