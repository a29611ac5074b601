// A Settings section another screen sends the user to ("Settings → Summaries" from an LLM
// error): the link goes to #/settings and names the section here; the form brings it into view
// once, on its first render.
export type SettingsSection = "summaries";

let pending: SettingsSection | null = null;

/** Call from the link's click: the next Settings form shows `section`. */
export function requestSettingsSection(section: SettingsSection) {
  pending = section;
}

/** The section asked for (once: taking it clears it). */
export function takeSettingsSection(): SettingsSection | null {
  const s = pending;
  pending = null;
  return s;
}

/** The id of a section's element (the link's fragment and the scroll target). */
export const SECTION_IDS: Record<SettingsSection, string> = { summaries: "settings-summaries" };
