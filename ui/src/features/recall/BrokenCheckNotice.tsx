// A notice when a change broke a recall check: the backend runs the checks after every change
// that can move them and announces a `checks` change; this asks for that owner's checks and tells
// of those the run just broke, with a way to the check (and its undo).
import { useEffect, useRef, useState } from "react";

import { useBackend } from "../../backend";
import type { RecallCheckDto } from "../../backend/types";
import { Toast } from "../../components/Toast";
import { useI18n } from "../../i18n";
import { href } from "../../router";

type Notice = { key: string; agent: string | null; checks: RecallCheckDto[] };

export function BrokenCheckNotice() {
  const b = useBackend();
  const { t, num } = useI18n();
  const [notice, setNotice] = useState<Notice | null>(null);
  // Each break is told once: a check's id with the time of the run that broke it.
  const told = useRef(new Set<string>());
  useEffect(
    () =>
      b.onChange((e) => {
        if (e.kind !== "checks") return;
        b.call("recall_checks", { agent: e.agent, force: false }).then(
          (d) => {
            const fresh = d.checks.filter((c) => c.just_broke && !told.current.has(`${c.id}@${c.ran}`));
            if (fresh.length === 0) return;
            for (const c of fresh) told.current.add(`${c.id}@${c.ran}`);
            setNotice({ key: fresh.map((c) => `${c.id}@${c.ran}`).join(","), agent: e.agent, checks: fresh });
          },
          // The checks panel says why when it is opened.
          () => undefined,
        );
      }),
    [b],
  );
  if (!notice) return null;
  const first = notice.checks[0]!;
  return (
    <Toast
      id={notice.key}
      onClose={() => setNotice(null)}
      timeoutMs={12000}
      action={{
        label: t("checks.notice.open"),
        testId: "broken-check-open",
        onClick: () => {
          window.location.hash = href({ page: "recall", agent: notice.agent ?? undefined, q: first.question });
          setNotice(null);
        },
      }}
    >
      <span data-testid="broken-check-notice">
        {notice.checks.length === 1
          ? t("checks.notice.one", { q: first.question, agent: notice.agent ?? t("checks.notice.global") })
          : t("checks.notice.many", { n: num(notice.checks.length), agent: notice.agent ?? t("checks.notice.global") })}
      </span>
    </Toast>
  );
}
