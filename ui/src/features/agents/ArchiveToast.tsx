import { useMutation } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";

import { BackendError, useBackend } from "../../backend";
import type { ArchivedDto } from "../../backend/types";
import { Toast } from "../../components/Toast";
import { useI18n } from "../../i18n";
import { navigate } from "../../router";
import { useInvalidateAgents } from "./manage";

// The last archive, announced on the agents list the app goes to after it (the agent's page is
// gone), with its Undo.
let last: ArchivedDto | null = null;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function announceArchived(a: ArchivedDto | null) {
  last = a;
  emit();
}

function useLastArchived(): ArchivedDto | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => last,
  );
}

export function ArchiveToast() {
  const { t } = useI18n();
  const b = useBackend();
  const a = useLastArchived();
  const invalidate = useInvalidateAgents();
  const undo = useMutation({
    mutationFn: (x: ArchivedDto) => b.call("restore_agent", { archived_name: x.archived_name }),
    onSuccess: async (d) => {
      announceArchived(null);
      await invalidate();
      navigate({ page: "agent", name: d.summary.name, tab: "overview" });
    },
  });
  if (undo.error) {
    const e = BackendError.from(undo.error);
    return (
      <Toast id="archive-undo-error" tone="error" onClose={() => undo.reset()} detail={e.message}>
        {t("archive.undoFailed")}
      </Toast>
    );
  }
  if (!a) return null;
  return (
    <Toast
      id={a.archived_name}
      onClose={() => announceArchived(null)}
      action={{ label: t("toast.undoBtn"), onClick: () => undo.mutate(a), testId: "toast-undo" }}
    >
      {t("archive.done", { name: a.name })}
    </Toast>
  );
}
