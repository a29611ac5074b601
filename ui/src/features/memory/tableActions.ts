import type { BackendError } from "../../backend";
import type { Picked } from "./curation";

/** What the memory screen gives both tables: the selection, the "new" marks and the calls. */
export type TableActions = {
  /** A change is running: row actions wait. */
  busy: boolean;
  selected: ReadonlyMap<string, Picked>;
  select: (items: Picked[], on: boolean) => void;
  isNew: (id: string) => boolean;
  /** Saves an edit; resolves with the error to show in the editor, or null when it may close. */
  save: (p: Picked, content: string, restamp: boolean) => Promise<BackendError | null>;
  /** Deletes the entry (or, when it is part of a larger selection, asks to delete the selection);
   * resolves true when the list changed. */
  remove: (p: Picked) => Promise<boolean>;
  /** Moves the entry to the other section. */
  move: (p: Picked) => Promise<boolean>;
  /** A short note for the user (the screen's toast). */
  notice: (message: string) => void;
  /** Opens "Forget everywhere…" for the entry (or the selection it is part of). */
  forgetEverywhere: (p: Picked) => void;
  /** Opens "Where did this come from?" for the entry. */
  origin: (p: Picked) => void;
  /** The entry a link pointed at (`?entry=`): marked until another is followed. */
  target: string | null;
};
