package io.oryxos.memory;

import java.util.List;

/**
 * Stand-in: the reference runs the memory facade without an embedding provider (engine null),
 * so recall goes straight to the store's keyword recall and this is never called.
 */
public class MemoryRecallEngine {
  public List<String> recall(LongTermMemoryStore store, String agent, String keyword) {
    throw new UnsupportedOperationException("no recall engine in the reference run");
  }
}
