// A certificate's SHA-256 fingerprint ("AB:CD:…", 32 bytes) as a person compares it with what
// `oryx serve` printed: in groups of four bytes, or shortened to its ends in a list.

function bytes(fp: string): string[] {
  const parts = fp.trim().toUpperCase().split(":").filter(Boolean);
  if (parts.length > 1) return parts;
  // Without separators: two hex digits a byte.
  return parts[0]?.match(/.{1,2}/g) ?? [];
}

/** The fingerprint in groups of four bytes ("AB:CD:EF:01", …). */
export function fingerprintGroups(fp: string): string[] {
  const b = bytes(fp);
  const out: string[] = [];
  for (let i = 0; i < b.length; i += 4) out.push(b.slice(i, i + 4).join(":"));
  return out;
}

/** Its first and last four bytes ("AB:CD:EF:01…89:AB:CD:EF"); the whole when that is short. */
export function shortFingerprint(fp: string): string {
  const b = bytes(fp);
  if (b.length <= 8) return b.join(":");
  return `${b.slice(0, 4).join(":")}…${b.slice(-4).join(":")}`;
}

/** Whether two fingerprints are the same (case and separators aside). */
export function sameFingerprint(a: string, b: string): boolean {
  return bytes(a).join("") === bytes(b).join("");
}
