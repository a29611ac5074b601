import { createContext, useContext, useMemo, type ReactNode } from "react";

import type { LanguageDto } from "../backend/types";
import { en, type MessageKey } from "./en";
import { zh } from "./zh";

export type Lang = "en" | "zh";
export type { MessageKey };
export type Vars = Record<string, string | number>;
export type TFunction = (key: MessageKey, vars?: Vars) => string;

const DICTS: Record<Lang, Record<MessageKey, string>> = { en, zh };

export function systemLang(nav: { language?: string } | undefined = typeof navigator === "undefined" ? undefined : navigator): Lang {
  return nav?.language?.toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function resolveLang(setting: LanguageDto | undefined): Lang {
  return setting === "zh" || setting === "en" ? setting : systemLang();
}

/** English needs a singular form ("1 turn"); a message with one has it under `<key>_one`, used
 * when `n` is 1 (the number, or as `num` formats it). Chinese has none and repeats the message. */
export function translate(lang: Lang, key: MessageKey, vars?: Vars): string {
  const one = vars !== undefined && String(vars.n) === "1" ? (`${key}_one` as MessageKey) : null;
  const dict = DICTS[lang];
  const s = (one && dict[one]) ?? dict[key] ?? en[key];
  if (!vars) return s;
  return s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}

type I18n = { lang: Lang; t: TFunction; num: (n: number) => string };

const I18nContext = createContext<I18n>({
  lang: "en",
  t: (k, v) => translate("en", k, v),
  num: (n) => n.toLocaleString("en"),
});

export function I18nProvider({ lang, children }: { lang: Lang; children: ReactNode }) {
  const value = useMemo<I18n>(() => {
    const fmt = new Intl.NumberFormat(lang === "zh" ? "zh-CN" : "en-US");
    return { lang, t: (k, v) => translate(lang, k, v), num: (n) => fmt.format(n) };
  }, [lang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}
