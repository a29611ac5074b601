import { useEffect, useState } from "react";

import type { ThemeDto } from "../backend/types";

export type ResolvedTheme = "light" | "dark";

function prefersDark(): boolean {
  return typeof window !== "undefined" && typeof window.matchMedia === "function" && window.matchMedia("(prefers-color-scheme: dark)").matches;
}

/** The theme setting, or the OS preference for "system" (followed live). */
export function useResolvedTheme(setting: ThemeDto | undefined): ResolvedTheme {
  const [systemDark, setSystemDark] = useState(prefersDark);
  useEffect(() => {
    if (typeof window.matchMedia !== "function") return;
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    const on = (e: MediaQueryListEvent) => setSystemDark(e.matches);
    mq.addEventListener?.("change", on);
    return () => mq.removeEventListener?.("change", on);
  }, []);
  if (setting === "light" || setting === "dark") return setting;
  return systemDark ? "dark" : "light";
}

/** Applies the theme to <html data-theme>, where the CSS variables switch. */
export function useApplyTheme(theme: ResolvedTheme) {
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
  }, [theme]);
}
