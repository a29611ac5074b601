import { useEffect, useState } from "react";

import { useI18n } from "../i18n";
import { Icon } from "./Icon";

export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through to the textarea fallback */
  }
  try {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand("copy");
    ta.remove();
    return ok;
  } catch {
    return false;
  }
}

export function CopyButton({ text, label, testId }: { text: string; label?: string; testId?: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<"idle" | "ok" | "fail">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const id = setTimeout(() => setState("idle"), 1500);
    return () => clearTimeout(id);
  }, [state]);
  return (
    <button
      type="button"
      className="btn btn-small"
      data-testid={testId}
      onClick={() => void copyText(text).then((ok) => setState(ok ? "ok" : "fail"))}
    >
      <Icon name={state === "ok" ? "check" : "copy"} size={13} />
      {state === "ok" ? t("common.copied") : state === "fail" ? t("common.copyFailed") : (label ?? t("common.copy"))}
    </button>
  );
}
