export function humanBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** Pretty-prints JSON text; returns the input when it is not JSON. */
export function prettyJson(text: string | null | undefined): string {
  if (text === null || text === undefined || text === "") return "";
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** result_json holds the tool output JSON-encoded as a string: show the string itself. */
export function decodeResult(text: string | null | undefined): string {
  if (text === null || text === undefined) return "";
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "string" ? v : JSON.stringify(v, null, 2);
  } catch {
    return text;
  }
}
