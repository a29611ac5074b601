package io.oryxos.memory;

import io.oryxos.core.memory.MemoryEntryView;
import java.util.List;

/** Stand-in: no vector index in the reference run (the facade is built with index null). */
public class MemoryVectorIndex {
  public void enqueue(String agent, MemoryEntryView entry) {}

  public void reconcile(String agent, List<MemoryEntryView> entries) {}
}
