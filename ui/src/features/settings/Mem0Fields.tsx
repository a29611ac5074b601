import { useState } from "react";

import { BackendError } from "../../backend";
import type { SettingsDto } from "../../backend/types";
import { Icon } from "../../components/Icon";
import { useI18n, type MessageKey } from "../../i18n";
import { useTestMem0 } from "./hooks";

export const MAX_TIMEOUT_MS = 3_600_000;

export function parseTimeout(s: string): number | null {
  if (!/^\s*\d+\s*$/.test(s)) return null;
  const n = Number(s);
  return n >= 1 && n <= MAX_TIMEOUT_MS ? n : null;
}

type Problem = { field: "url" | "user" | "timeout"; key: MessageKey };

/** What the console's validation would reject, checked before a save or a test. */
export function mem0Problems(d: SettingsDto, timeout: number | null): Problem[] {
  const p: Problem[] = [];
  const url = d.mem0_base_url?.trim() ?? "";
  if (!url) p.push({ field: "url", key: "settings.mem0.urlRequired" });
  else if (!/^https?:\/\//.test(url)) p.push({ field: "url", key: "settings.mem0.urlInvalid" });
  if (!d.mem0_user_id.trim()) p.push({ field: "user", key: "settings.mem0.userRequired" });
  if (timeout === null) p.push({ field: "timeout", key: "settings.mem0.timeoutInvalid" });
  return p;
}

/** Base URL, user id, API key (write-only: "stored" when one is kept) and timeout, with a
 * "Test connection" that tries the values as typed. */
export function Mem0Fields({
  draft,
  stored,
  timeoutText,
  timeoutValue,
  onTimeoutText,
  edit,
  testPayload,
  showProblems,
}: {
  draft: SettingsDto;
  stored: SettingsDto;
  timeoutText: string;
  timeoutValue: number | null;
  onTimeoutText: (v: string) => void;
  edit: (patch: Partial<SettingsDto>) => void;
  testPayload: () => SettingsDto;
  /** A save was tried: show every problem, touched or not. */
  showProblems?: boolean;
}) {
  const { t, num } = useI18n();
  const problems = mem0Problems(draft, timeoutValue);
  // A field says what is wrong with it once the user has left it (or tried to save), not before
  // anything was typed.
  const [touched, setTouched] = useState<ReadonlySet<Problem["field"]>>(() => new Set());
  const touch = (f: Problem["field"]) => setTouched((s) => (s.has(f) ? s : new Set(s).add(f)));
  const problem = (f: Problem["field"]) => (showProblems || touched.has(f) ? problems.find((p) => p.field === f) : undefined);
  const test = useTestMem0();
  const typedKey = !!draft.mem0_api_key;
  const keyStored = stored.mem0_api_key_set && draft.mem0_api_key_set;
  const user = draft.mem0_user_id.trim() || "oryxos";

  // A changed field makes an earlier answer stale.
  const change = (patch: Partial<SettingsDto>) => {
    edit(patch);
    test.reset();
  };

  const field = (f: Problem["field"], hint: string) => {
    const p = problem(f);
    return (
      <div id={`settings-mem0-${f}-hint`} className={p ? "field-hint inline-error" : "field-hint"} role={p ? "alert" : undefined} data-testid={`settings-mem0-${f}-hint`}>
        {p ? t(p.key) : hint}
      </div>
    );
  };

  return (
    <div className="subsection" role="group" aria-labelledby="settings-mem0-title" data-testid="settings-mem0">
      <h3 id="settings-mem0-title" className="subsection-title">
        {t("settings.mem0.title")}
      </h3>
      <p className="field-hint" data-testid="settings-mem0-writes">
        {t("settings.mem0.writes")}
      </p>
      <div className="form-grid">
        <label htmlFor="settings-mem0-url">{t("settings.mem0.url")}</label>
        <div>
          <input
            id="settings-mem0-url"
            type="text"
            inputMode="url"
            className="mono"
            spellCheck={false}
            autoComplete="off"
            placeholder="http://127.0.0.1:8888"
            value={draft.mem0_base_url ?? ""}
            aria-invalid={!!problem("url")}
            aria-describedby="settings-mem0-url-hint"
            onBlur={() => touch("url")}
            onChange={(e) => change({ mem0_base_url: e.target.value || null })}
            data-testid="settings-mem0-url"
          />
          {field("url", t("settings.mem0.urlHint"))}
        </div>

        <label htmlFor="settings-mem0-user">{t("settings.mem0.user")}</label>
        <div>
          <input
            id="settings-mem0-user"
            type="text"
            className="mono"
            spellCheck={false}
            autoComplete="off"
            value={draft.mem0_user_id}
            aria-invalid={!!problem("user")}
            aria-describedby="settings-mem0-user-hint"
            onBlur={() => touch("user")}
            onChange={(e) => change({ mem0_user_id: e.target.value })}
            data-testid="settings-mem0-user"
          />
          {field("user", t("settings.mem0.userHint", { user }))}
        </div>

        <label htmlFor="settings-mem0-key">{t("settings.mem0.key")}</label>
        <div>
          <div className="path-field">
            <input
              id="settings-mem0-key"
              type="password"
              className="mono"
              autoComplete="new-password"
              spellCheck={false}
              value={draft.mem0_api_key ?? ""}
              placeholder={keyStored ? t("settings.mem0.keyStoredPlaceholder") : ""}
              onChange={(e) => change({ mem0_api_key: e.target.value || null })}
              data-testid="settings-mem0-key"
            />
            {keyStored && !typedKey ? (
              <span className="tag tag-ok" data-testid="settings-mem0-key-stored">
                <Icon name="check" size={12} /> {t("settings.mem0.keyStored")}
              </span>
            ) : null}
            {stored.mem0_api_key_set && !typedKey ? (
              draft.mem0_api_key_set ? (
                <button type="button" className="btn btn-small" onClick={() => change({ mem0_api_key_set: false })} data-testid="settings-mem0-key-forget">
                  {t("settings.mem0.keyForget")}
                </button>
              ) : (
                <button type="button" className="btn btn-small" onClick={() => change({ mem0_api_key_set: true })} data-testid="settings-mem0-key-keep">
                  {t("settings.mem0.keyUndo")}
                </button>
              )
            ) : null}
          </div>
          <div className="field-hint">
            {stored.mem0_api_key_set && !draft.mem0_api_key_set && !typedKey
              ? t("settings.mem0.keyForgotten")
              : keyStored
                ? t("settings.mem0.keyStoredHint")
                : t("settings.mem0.keyNone")}
          </div>
        </div>

        <label htmlFor="settings-mem0-timeout">{t("settings.mem0.timeout")}</label>
        <div>
          <input
            id="settings-mem0-timeout"
            type="number"
            min={1}
            max={MAX_TIMEOUT_MS}
            step={1000}
            value={timeoutText}
            aria-invalid={!!problem("timeout")}
            aria-describedby="settings-mem0-timeout-hint"
            onBlur={() => touch("timeout")}
            onChange={(e) => {
              onTimeoutText(e.target.value);
              test.reset();
            }}
            data-testid="settings-mem0-timeout"
          />
          {field("timeout", t("settings.mem0.timeoutHint"))}
        </div>

        <span />
        <div>
          <div className="test-row">
            <button type="button" className="btn" disabled={problems.length > 0 || test.isPending} onClick={() => test.mutate(testPayload())} data-testid="settings-mem0-test">
              <Icon name="refresh" /> {test.isPending ? t("settings.mem0.testing") : t("settings.mem0.test")}
            </button>
            <span className="field-hint">{t("settings.mem0.testHint")}</span>
          </div>
          {test.data || test.isError ? (
            <div
              className={test.data?.ok ? "mem0-status ok" : "mem0-status err"}
              role="status"
              aria-live="polite"
              data-testid="settings-mem0-status"
              data-ok={test.data?.ok ? "true" : "false"}
            >
              <Icon name={test.data?.ok ? "check" : "error"} />
              <div>
                {test.data?.ok ? (
                  t("settings.mem0.ok", { url: test.data.base_url, n: num(test.data.global_entries ?? 0) })
                ) : test.data ? (
                  <>
                    <strong>{t("settings.mem0.failed", { url: test.data.base_url })}</strong>
                    <div className="mono wrap">{test.data.message}</div>
                  </>
                ) : (
                  <>
                    <strong>{t("settings.mem0.invalid")}</strong>
                    <div className="mono wrap">{BackendError.from(test.error).message}</div>
                  </>
                )}
              </div>
            </div>
          ) : null}
        </div>
      </div>
    </div>
  );
}
