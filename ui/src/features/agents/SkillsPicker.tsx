import { useMutation } from "@tanstack/react-query";
import { useState } from "react";

import { BackendError, useBackend } from "../../backend";
import type { AgentDetail } from "../../backend/types";
import { Empty, ErrorState, Skeleton } from "../../components/States";
import { useI18n } from "../../i18n";
import { useOp } from "../../queries/ops";
import { useInvalidateAgents } from "./manage";

/** Which of the root's skills the agent links: Save sends what was added and removed. */
export function SkillsPicker({ a, onClose }: { a: AgentDetail; onClose: () => void }) {
  const { t } = useI18n();
  const b = useBackend();
  const invalidate = useInvalidateAgents();
  const skills = useOp("root_skills", {});
  const linked = a.skills.map((s) => s.name);
  const [checked, setChecked] = useState<string[]>(linked);
  const add = checked.filter((s) => !linked.includes(s));
  const remove = linked.filter((s) => !checked.includes(s));
  const save = useMutation({
    mutationFn: () => b.call("set_agent_skills", { name: a.summary.name, add, remove }),
    onSuccess: async () => {
      await invalidate();
      onClose();
    },
  });
  // Linked skills the root does not have (broken links) stay listed so they can be removed.
  const names = [...new Set([...(skills.data?.map((s) => s.name) ?? []), ...linked])].sort();
  const desc = (n: string) => skills.data?.find((s) => s.name === n)?.description ?? null;
  return (
    <div className="skills-picker" data-testid="skills-picker" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      {skills.isPending ? (
        <Skeleton rows={3} />
      ) : skills.isError ? (
        <ErrorState error={skills.error} onRetry={() => void skills.refetch()} compact />
      ) : names.length === 0 ? (
        <Empty>{t("skills.none")}</Empty>
      ) : (
        <ul className="list check-list">
          {names.map((n) => (
            <li key={n}>
              <label className="check">
                <input
                  type="checkbox"
                  checked={checked.includes(n)}
                  onChange={(e) => setChecked(e.target.checked ? [...checked, n] : checked.filter((x) => x !== n))}
                  data-testid={`skill-check-${n}`}
                />
                <span className="mono">{n}</span>
                {desc(n) ? <span className="muted"> — {desc(n)}</span> : null}
              </label>
            </li>
          ))}
        </ul>
      )}
      {save.error ? (
        <div className="inline-error" role="alert" data-testid="skills-error">
          {BackendError.from(save.error).message}
        </div>
      ) : null}
      <div className="form-actions">
        <button type="button" className="btn btn-primary btn-small" disabled={(add.length === 0 && remove.length === 0) || save.isPending} onClick={() => save.mutate()} data-testid="skills-save">
          {t("edit.save")}
        </button>
        <button type="button" className="btn btn-small" onClick={onClose} data-testid="skills-cancel">
          {t("edit.cancel")}
        </button>
      </div>
    </div>
  );
}
