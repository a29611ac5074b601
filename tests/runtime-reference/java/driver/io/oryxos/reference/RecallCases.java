package io.oryxos.reference;

import io.oryxos.core.agent.ToolExecutionContext;
import io.oryxos.core.embedding.TextEmbedder;
import io.oryxos.core.memory.MemoryEntryView;
import io.oryxos.core.retrieval.RetrievalPipeline;
import io.oryxos.memory.DeferredTextEmbedder;
import io.oryxos.memory.LongTermMemoryStore;
import io.oryxos.memory.MarkdownMemoryStore;
import io.oryxos.memory.MemoryRecallEngine;
import io.oryxos.memory.MemoryServiceImpl;
import io.oryxos.memory.MemoryVectorIndex;
import io.oryxos.memory.SqliteMemoryStore;
import io.oryxos.memory.builtin.MemoryTools;
import io.oryxos.provider.MockEmbeddingModel;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The runtime's fused recall (MemoryRecallEngine over its memory_vectors index, wired as the
 * runtime's OryxOsRuntime.memoryService wires it) on markdown and sqlite fixtures: what
 * recall_memory answers, and the fused list with the engine's scores.
 *
 * <p>The index is built by the runtime's MemoryVectorIndex (enqueue, or reconcile through
 * MemoryServiceImpl.reconcileIndex) with a synchronous executor, so rows exist when the driver
 * reads them. The fused scores come from the engine's own routes, reached by reflection and fused
 * by RetrievalPipeline with the engine's own weights and topK; each fused list is checked line for
 * line against what the engine's recall returned.
 */
final class RecallCases {

  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final String MOCK = "mock";
  private static final String FAILING = "failing";
  private static final String NONE = "none";
  private static final double[] DEFAULT_WEIGHTS = {1.0, 1.0, 1.0};
  private static final int DEFAULT_TOP_K = 20;
  private static final Executor SYNC = Runnable::run;

  private static final List<String> QUERIES =
      List.of("OPS-4721", "ops-4721", "乌龙茶", "出差", "TEA", "量子纠缠", "");

  /**
   * Alpha's archival entries: timestamp as written in MEMORY.md (null: a line without one), then
   * the content. Equal timestamps, a content saved twice at different times, an exact duplicate
   * line, an `HH:mm` stamp, a day that does not exist and a 24:00 stamp, as hand edits leave them.
   */
  private static final String[][] ALPHA = {
    {"2026-02-10 09:12:03", "用户住在北京朝阳区，通勤坐地铁 14 号线"},
    {"2026-02-10 09:12:03", "User prefers dark mode in every editor"},
    {"2026-02-10 09:12:03", "喜欢喝乌龙茶，不加糖"},
    {"2026-02-11 18:40:00", "Deploy of OPS-4721 rolled back after the canary failed"},
    {"2026-02-12 10:05:31", "ops-4721 的复盘会定在周五下午三点"},
    {"2026-02-13 08:00:00", "周报模板改成三段式：进展、风险、下周计划"},
    {"2026-02-14 21:17:45", "The staging database password rotates every 30 days"},
    {"2026-02-15 11:11:11", "Kubernetes cluster on staging upgraded to 1.29"},
    {"2026-02-16 12:30:00", "用户对花生过敏，订餐时要避开"},
    {"2026-02-17 16:20:00", "会议纪要：Q3 OKR 评审推迟到 7 月 12 日"},
    {"2026-02-18 09:00:00", "The VPN profile lives in ~/work/vpn/oryx.ovpn"},
    {"2026-02-19 14:45:00", "Alice is on call for the payments team this week"},
    {"2026-02-20 20:02:02", "用户的猫叫「豆包」，三岁，怕吸尘器"},
    {"2026-02-21 10:10:10", "Latency dashboard: grafana/d/lat-p99, alert above 800 ms"},
    {"2026-02-22 07:30:00", "Flight to Shanghai on 2026-04-03, seat 32A"},
    {"2026-02-23 15:00:00", "Afternoon: tea over coffee, green TEA preferred"},
    {"2026-02-24 09:45:00", "报销单需要在每月 25 日前提交"},
    {"2026-02-25 17:05:00", "The build cache on /mnt/cache fills up weekly; clean it on Mondays"},
    {"2026-02-26 13:13:13", "OPS-4721 root cause: an expired TLS certificate on the gateway"},
    {"2026-02-27 22:22:22", "用户正在学习 Rust，读到所有权一章"},
    {"2026-02-30 09:00:00", "Postgres 16 migration planned for May"},
    {"2026-03-01 08:00", "项目代号 Oryx，内部简称 OX"},
    {"2026-03-01 10:00:00", "Book club meets every second Thursday"},
    {null, "手工补记：用户换了新手机号，尾号 0427"},
    {"2026-03-02 11:30:00", "用户的生日是 11 月 8 日"},
    {"2026-03-02 11:30:00", "Send invoices to billing@example.com"},
    {"2026-03-03 24:00:00", "SLA for the search API is 99.9%"},
    {"2026-03-04 09:15:00", "用户不喜欢在早上九点前开会"},
    {"2026-03-05 19:00:00", "Prefers answers in Chinese with English technical terms"},
    {"2026-03-06 08:08:08", "喜欢喝乌龙茶，不加糖"},
    {"2026-03-07 12:00:00", "下周三去杭州出差，住西湖边"},
    {"2026-03-07 12:00:00", "下周三去杭州出差，住西湖边"},
    {"2026-03-08 10:20:30", "kubectl rollout restart fixed the stuck pods for ops-4721"},
    {"2026-03-09 14:00:00", "团队周会改到周二上午十点"},
    {"2026-03-10 16:30:00", "Use the Kubernetes namespace oryx-prod for production"},
    {"2026-03-11 09:00:00", "用户想在四月前读完《三体》第二部"},
    {"2026-03-12 18:18:18", "Dentist appointment moved to March 20"},
    {"2026-03-13 07:45:00", "早上跑步 5 公里，周末休息"},
    {"2026-03-14 11:00:00", "The on-call handbook is in the wiki under OPS"},
    {"2026-03-15 20:00:00", "用户说 OPS 值班表每月初更新，出差期间找 Bob 代班"},
  };

  /** A hand-indented line: not an entry line to the time parser, an entry to everything else. */
  private static final String INDENTED = "  - [2026-03-16 09:00:00] indented by hand: Tea tasting on Saturday";

  private static final String[] ALPHA_CORE = {
    "- [2026-02-01 09:00:00] 用户叫王磊，称呼他老王",
    "- [2026-02-01 09:00:05] Always answer OPS-4721 questions with the runbook link",
  };

  private static final String[][] BETA = {
    {"2026-02-12 08:00:00", "Kubernetes cluster on staging upgraded to 1.29"},
    {"2026-02-13 09:30:00", "beta 负责 OPS-4721 的客户沟通"},
    {"2026-02-14 10:00:00", "喜欢喝乌龙茶，不加糖"},
    {"2026-02-15 11:00:00", "Quarterly budget review on March 28"},
    {"2026-02-16 12:00:00", "出差报销走新的审批流程"},
  };

  private RecallCases() {}

  static List<Map<String, Object>> build(Path schema, Path work) throws Exception {
    String ddl = Files.readString(schema);
    Files.createDirectories(work);
    List<Map<String, Object>> cases = new ArrayList<>();
    String alphaFile = markdownFile(ALPHA_CORE, alphaLines());
    String betaFile = markdownFile(new String[0], lines(BETA));

    // 1. markdown, every archival entry indexed (reconcile), another agent's rows alongside.
    cases.add(markdownCase(ddl, work, "markdown-full", alphaFile, betaFile, MOCK, DEFAULT_WEIGHTS,
        DEFAULT_TOP_K, RecallCases::fullIndex, false));
    // 2. markdown, about half indexed, an orphan row, rows of another model (both agents).
    cases.add(markdownCase(ddl, work, "markdown-partial", alphaFile, betaFile, MOCK,
        new double[] {3.0, 1.0, 0.5}, 5, RecallCases::partialIndex, true));
    // The same with only the semantic route weighed: the entries it lacks still come, scored 0.
    cases.add(markdownCase(ddl, work, "markdown-partial-semantic-only", alphaFile, betaFile, MOCK,
        new double[] {1.0, 0.0, 0.0}, 30, RecallCases::partialIndex, false));
    // 5. markdown, semantic route failing: keyword + recency and the runtime's notice.
    cases.add(markdownCase(ddl, work, "markdown-failing", alphaFile, betaFile, FAILING,
        DEFAULT_WEIGHTS, DEFAULT_TOP_K, RecallCases::fullIndex, false));
    // 6. markdown, no embedding configured: the plain keyword answer.
    cases.add(markdownCase(ddl, work, "markdown-none", alphaFile, betaFile, NONE, DEFAULT_WEIGHTS,
        DEFAULT_TOP_K, RecallCases::fullIndex, false));
    // 7. an empty archival section.
    String emptyFile = markdownFile(ALPHA_CORE, List.of());
    cases.add(markdownCase(ddl, work, "markdown-empty", emptyFile, betaFile, MOCK, DEFAULT_WEIGHTS,
        DEFAULT_TOP_K, RecallCases::fullIndex, false));
    cases.add(markdownCase(ddl, work, "markdown-empty-failing", emptyFile, betaFile, FAILING,
        DEFAULT_WEIGHTS, DEFAULT_TOP_K, RecallCases::fullIndex, false));

    // 3. sqlite, full index of every agent, default settings; alpha and beta share the tables.
    cases.add(sqliteCase(ddl, work, "sqlite-full-alpha", "alpha", MOCK, DEFAULT_WEIGHTS, DEFAULT_TOP_K));
    cases.add(sqliteCase(ddl, work, "sqlite-full-beta", "beta", MOCK, DEFAULT_WEIGHTS, DEFAULT_TOP_K));
    // 4. sqlite, topK 3, one route switched off.
    cases.add(sqliteCase(ddl, work, "sqlite-top3-no-semantic", "alpha", MOCK,
        new double[] {0.0, 1.0, 1.0}, 3));
    cases.add(sqliteCase(ddl, work, "sqlite-top3-semantic-only", "alpha", MOCK,
        new double[] {1.0, 0.0, 0.0}, 3));
    // 5. and 6. on sqlite.
    cases.add(sqliteCase(ddl, work, "sqlite-failing", "alpha", FAILING, DEFAULT_WEIGHTS, DEFAULT_TOP_K));
    cases.add(sqliteCase(ddl, work, "sqlite-none", "alpha", NONE, DEFAULT_WEIGHTS, DEFAULT_TOP_K));
    // 7. on sqlite: gamma has core rows only.
    cases.add(sqliteCase(ddl, work, "sqlite-empty", "gamma", MOCK, DEFAULT_WEIGHTS, DEFAULT_TOP_K));
    return cases;
  }

  // ---------------------------------------------------------------- fixtures

  private static List<String> alphaLines() {
    List<String> out = new ArrayList<>(lines(ALPHA));
    out.add(INDENTED);
    return out;
  }

  private static List<String> lines(String[][] entries) {
    List<String> out = new ArrayList<>();
    for (String[] e : entries) {
      out.add(e[0] == null ? "- " + e[1] : "- [" + e[0] + "] " + e[1]);
    }
    return out;
  }

  /** The layout the runtime's append writes: both headings, no newline after the last entry. */
  private static String markdownFile(String[] core, List<String> archival) {
    return "## 核心记忆\n" + String.join("\n", core) + "\n## 归档记忆\n" + String.join("\n", archival);
  }

  /** The vector rows a case starts from, written by the runtime's index. */
  private interface Indexer {
    void index(Connection conn, LongTermMemoryStore store) throws Exception;
  }

  private static MemoryVectorIndex mockIndex(Connection conn) {
    return new MemoryVectorIndex(new JdbcMemoryVectorRepository(conn), mockEmbedder(), SYNC);
  }

  private static TextEmbedder mockEmbedder() {
    MockEmbeddingModel model = new MockEmbeddingModel();
    return new DeferredTextEmbedder(() -> model);
  }

  /** The runtime's start-up reconcile for each agent, as its memoryIndexReconciler runs it. */
  private static void fullIndex(Connection conn, LongTermMemoryStore store) {
    MemoryServiceImpl service = new MemoryServiceImpl(store, null, mockIndex(conn));
    for (String agent : new String[] {"alpha", "beta", "__global__"}) {
      service.reconcileIndex(agent);
    }
  }

  /**
   * Every other alpha entry indexed by the mock model; some of the rest (and beta's entries) by
   * another model, with another dimension; an orphan row whose entry left the file.
   */
  private static void partialIndex(Connection conn, LongTermMemoryStore store) {
    MemoryVectorIndex mock = mockIndex(conn);
    MemoryVectorIndex other =
        new MemoryVectorIndex(new JdbcMemoryVectorRepository(conn), new OtherModelEmbedder(), SYNC);
    List<MemoryEntryView> alpha = withAgent("alpha", store::archivalEntries);
    for (int i = 0; i < alpha.size(); i++) {
      if (i % 2 == 0) {
        mock.enqueue("alpha", alpha.get(i));
      } else if (i % 4 == 1) {
        other.enqueue("alpha", alpha.get(i));
      }
    }
    mock.enqueue("alpha",
        new MemoryEntryView("- [2026-01-05 10:00:00] 已删除的旧条目：the old Wi-Fi password is oryx-guest",
            LocalDateTime.of(2026, 1, 5, 10, 0).toInstant(ZoneOffset.UTC)));
    List<MemoryEntryView> beta = withAgent("beta", store::archivalEntries);
    for (int i = 0; i < beta.size(); i++) {
      (i % 2 == 0 ? other : mock).enqueue("beta", beta.get(i));
    }
  }

  /**
   * An embedder of another model and dimension, standing for rows a previous configuration left
   * (the runtime keeps no such model offline): 8 floats taken from the mock vector, normalized.
   */
  private static final class OtherModelEmbedder implements TextEmbedder {
    private final MockEmbeddingModel mock = new MockEmbeddingModel();

    @Override
    public float[] embed(String text) {
      float[] v = Arrays.copyOf(mock.embed(text), 8);
      double n = 0;
      for (float f : v) {
        n += (double) f * f;
      }
      for (int i = 0; i < v.length; i++) {
        v[i] = (float) (v[i] / Math.sqrt(n));
      }
      return v;
    }

    @Override
    public String modelId() {
      return "openai/text-embedding-3-small";
    }

    @Override
    public int dimensions() {
      return 8;
    }
  }

  private static Connection openDb(String ddl, Path db, boolean entries) throws Exception {
    Files.deleteIfExists(db);
    Connection conn = DriverManager.getConnection("jdbc:sqlite:" + db);
    try (Statement st = conn.createStatement()) {
      if (entries) {
        st.execute(statement(ddl, "CREATE TABLE IF NOT EXISTS memory_entries"));
      }
      st.execute(statement(ddl, "CREATE TABLE IF NOT EXISTS memory_vectors"));
      st.execute(statement(ddl, "CREATE INDEX IF NOT EXISTS idx_memvec_agent"));
    }
    return conn;
  }

  /** One statement of the runtime's schema.sql, as it stands there. */
  private static String statement(String ddl, String head) {
    int from = ddl.indexOf(head);
    int to = ddl.indexOf(';', from);
    if (from < 0 || to < 0) {
      throw new IllegalStateException(head + " is not in the schema");
    }
    return ddl.substring(from, to);
  }

  // ---------------------------------------------------------------- markdown

  private static Map<String, Object> markdownCase(
      String ddl, Path work, String name, String alphaFile, String betaFile, String embedder,
      double[] weights, int topK, Indexer indexer, boolean reconcile) throws Exception {
    Path root = work.resolve(name);
    for (String[] agentFile : new String[][] {{"alpha", alphaFile}, {"beta", betaFile}}) {
      Path dir = root.resolve("agents").resolve(agentFile[0]);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("MEMORY.md"), agentFile[1], StandardCharsets.UTF_8);
    }
    Path db = work.resolve(name + ".db");
    LongTermMemoryStore store = new MarkdownMemoryStore(root);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", name);
    c.put("backend", "markdown");
    c.put("agent", "alpha");
    c.put("file", alphaFile);
    try (Connection conn = openDb(ddl, db, false)) {
      indexer.index(conn, store);
      run(c, conn, store, "alpha", embedder, weights, topK);
    }
    if (reconcile) {
      c.put("reconcile", reconcileOnCopy(ddl, db, work.resolve(name + "-reconciled.db"), store));
    }
    return c;
  }

  /**
   * The runtime's start-up reconcile for alpha (mock model) on a copy of the case's table: rows of
   * another model go for every agent, alpha's orphans go, alpha's missing entries are embedded.
   */
  private static Map<String, Object> reconcileOnCopy(String ddl, Path db, Path copy, LongTermMemoryStore store)
      throws Exception {
    Files.deleteIfExists(copy);
    Files.copy(db, copy);
    Map<String, Object> r = new LinkedHashMap<>();
    try (Connection conn = DriverManager.getConnection("jdbc:sqlite:" + copy)) {
      List<Map<String, Object>> before = vectorRows(conn);
      new MemoryServiceImpl(store, null, mockIndex(conn)).reconcileIndex("alpha");
      List<Map<String, Object>> after = vectorRows(conn);
      List<String> beforeHashes = hashes(before);
      List<String> afterHashes = hashes(after);
      r.put("agent", "alpha");
      r.put("embeddingModel", "mock/deterministic");
      r.put("before", beforeHashes);
      r.put("after", afterHashes);
      // By row: an entry whose row of another model goes and comes back embedded anew is in both.
      List<Object> beforeIds = before.stream().map(row -> row.get("id")).toList();
      List<Object> afterIds = after.stream().map(row -> row.get("id")).toList();
      r.put("deleted", hashes(before.stream().filter(row -> !afterIds.contains(row.get("id"))).toList()));
      r.put("added", hashes(after.stream().filter(row -> !beforeIds.contains(row.get("id"))).toList()));
      r.put("afterRows", after);
    }
    return r;
  }

  private static List<String> hashes(List<Map<String, Object>> rows) {
    return rows.stream().map(row -> (String) row.get("entry_hash")).toList();
  }

  // ---------------------------------------------------------------- sqlite

  private static final long MINUTE = 60_000L;

  /**
   * Alpha's entries as rows (content only; created_at in epoch ms from the stamp, the odd stamps
   * replaced by plain ones), interleaved with beta's, the global memory's and gamma's core rows;
   * one alpha row written last with an old time.
   */
  private static Map<String, Object> sqliteCase(
      String ddl, Path work, String name, String agent, String embedder, double[] weights, int topK)
      throws Exception {
    Path db = work.resolve(name + ".db");
    List<Map<String, Object>> rows = new ArrayList<>();
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", name);
    c.put("backend", "sqlite");
    c.put("agent", agent);
    try (Connection conn = openDb(ddl, db, true)) {
      long id = 0;
      for (String core : ALPHA_CORE) {
        rows.add(insert(conn, ++id, "alpha", "CORE", core.substring(core.indexOf("] ") + 2), ms(core.substring(3, 22))));
      }
      rows.add(insert(conn, ++id, "gamma", "CORE", "gamma 只有核心记忆，没有归档", ms("2026-02-01 10:00:00")));
      for (int i = 0; i < ALPHA.length; i++) {
        String stamp = ALPHA[i][0];
        long created =
            stamp == null || stamp.length() != 19 || stamp.startsWith("2026-02-30") || stamp.contains(" 24:")
                ? ms("2026-03-01 12:00:00") + i * MINUTE
                : ms(stamp);
        rows.add(insert(conn, ++id, "alpha", "ARCHIVAL", ALPHA[i][1], created));
        if (i % 8 == 3 && i / 8 < BETA.length) {
          String[] b = BETA[i / 8];
          rows.add(insert(conn, ++id, "beta", "ARCHIVAL", b[1], ms(b[0])));
        }
        if (i == 20) {
          rows.add(insert(conn, ++id, "__global__", "ARCHIVAL", "全局：服务器维护窗口是周日凌晨两点", created));
        }
      }
      rows.add(insert(conn, ++id, "alpha", "ARCHIVAL", "补录：OPS-4721 最早在 1 月 28 日报告", ms("2026-01-28 09:00:00")));
      rows.add(insert(conn, ++id, "alpha", "ARCHIVAL", "Mixed Case: Ops-4721 Follow-Up With The Vendor", ms("2026-03-15 20:00:00")));
      c.put("memory_entries", rows);
      LongTermMemoryStore store = new SqliteMemoryStore(new JdbcMemoryEntryRepository(conn));
      fullIndex(conn, store);
      run(c, conn, store, agent, embedder, weights, topK);
    }
    return c;
  }

  private static long ms(String stamp) {
    return LocalDateTime.parse(stamp, TS).toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  private static Map<String, Object> insert(
      Connection conn, long id, String agent, String scope, String content, long created) throws Exception {
    try (PreparedStatement ins =
        conn.prepareStatement(
            "INSERT INTO memory_entries(id, agent_name, scope, content, created_at) VALUES (?,?,?,?,?)")) {
      ins.setLong(1, id);
      ins.setString(2, agent);
      ins.setString(3, scope);
      ins.setString(4, content);
      ins.setLong(5, created);
      ins.executeUpdate();
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", id);
    row.put("agent_name", agent);
    row.put("scope", scope);
    row.put("content", content);
    row.put("created_at", created);
    return row;
  }

  // ---------------------------------------------------------------- runs

  /**
   * The runtime's wiring (OryxOsRuntime.memoryService): no embedding provider, the facade alone;
   * else the engine with a DeferredTextEmbedder over the provider's embedder (the failing one
   * stands for a provider that cannot be built, as its supplier throws then).
   */
  private static void run(
      Map<String, Object> c, Connection conn, LongTermMemoryStore store, String agent,
      String embedderKind, double[] weights, int topK) throws Exception {
    c.put("memory_vectors", vectorRows(conn));
    c.put("embedder", embedderKind);
    c.put("weights", weights);
    c.put("topK", topK);
    JdbcMemoryVectorRepository repo = new JdbcMemoryVectorRepository(conn);
    MemoryRecallEngine engine = null;
    MemoryServiceImpl service;
    if (NONE.equals(embedderKind)) {
      service = new MemoryServiceImpl(store);
    } else {
      Supplier<TextEmbedder> provider;
      if (MOCK.equals(embedderKind)) {
        MockEmbeddingModel model = new MockEmbeddingModel();
        provider = () -> model;
      } else {
        provider = () -> {
          throw new IllegalArgumentException("embedding provider 不存在于 Provider 注册表: missing");
        };
      }
      TextEmbedder embedder = new DeferredTextEmbedder(provider);
      engine = new MemoryRecallEngine(repo, embedder, weights, topK);
      service = new MemoryServiceImpl(store, engine, new MemoryVectorIndex(repo, embedder, SYNC));
    }
    MemoryTools tools = new MemoryTools(service);
    List<Map<String, Object>> queries = new ArrayList<>();
    List<String> recency = null;
    for (String query : QUERIES) {
      Map<String, Object> q = new LinkedHashMap<>();
      q.put("query", query);
      String answer = withAgent(agent, () -> tools.recallMemory(query));
      q.put("answer", answer);
      if (engine == null) {
        q.put("degraded", false);
        q.put("fused", null);
      } else {
        MemoryRecallEngine e = engine;
        Routes routes = withAgent(agent, () -> routes(e, store, agent, query));
        List<String> engineLines = withAgent(agent, () -> e.recall(store, agent, query));
        List<String> fusedLines = routes.fused.stream().map(f -> (String) f.get("line")).toList();
        List<String> expected = new ArrayList<>(fusedLines);
        if (routes.degraded) {
          expected.add(MemoryRecallEngine.DEGRADE_NOTICE);
        }
        String joined = expected.isEmpty() ? "没有找到相关记忆" : String.join("\n", expected);
        if (!expected.equals(engineLines) || !joined.equals(answer)) {
          throw new IllegalStateException(c.get("name") + " " + query + ": the routes fused by the "
              + "engine's settings do not give the engine's answer");
        }
        if (recency == null) {
          recency = routes.recency;
        } else if (!recency.equals(routes.recency)) {
          throw new IllegalStateException("the recency route changed between queries");
        }
        q.put("degraded", routes.degraded);
        q.put("fused", routes.fused);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("semantic", routes.semantic);
        r.put("keyword", routes.keyword);
        q.put("routes", r);
      }
      queries.add(q);
    }
    c.put("recency", recency);
    c.put("queries", queries);
  }

  private record Routes(
      List<Map<String, Object>> semantic, List<String> keyword, List<String> recency,
      boolean degraded, List<Map<String, Object>> fused) {}

  /**
   * The engine's three routes for one query, by its own private methods, and their fusion by
   * RetrievalPipeline with the engine's own weights and topK. The entry ids are numbered as the
   * engine's recall numbers them (first occurrence of each entry hash, from 1); the caller checks
   * the fused lines against the engine's own answer.
   */
  @SuppressWarnings("unchecked")
  private static Routes routes(MemoryRecallEngine engine, LongTermMemoryStore store, String agent, String keyword) {
    try {
      List<String> keywordLines = store.recallByKeyword(keyword);
      Map<String, Long> idByHash = new LinkedHashMap<>();
      Map<Long, String> contentById = new HashMap<>();
      List<MemoryEntryView> unique = new ArrayList<>();
      for (MemoryEntryView entry : store.archivalEntries()) {
        String hash = MemoryVectorIndex.entryHash(agent, entry.content());
        if (!idByHash.containsKey(hash)) {
          long id = idByHash.size() + 1L;
          idByHash.put(hash, id);
          contentById.put(id, entry.content());
          unique.add(entry);
        }
      }
      Method keywordRoute = MemoryRecallEngine.class.getDeclaredMethod("keywordRoute", List.class, String.class, Map.class);
      Method recencyRoute = MemoryRecallEngine.class.getDeclaredMethod("recencyRoute", List.class, String.class, Map.class);
      Method semanticRoute = MemoryRecallEngine.class.getDeclaredMethod("semanticRoute", String.class, String.class, Map.class);
      keywordRoute.setAccessible(true);
      recencyRoute.setAccessible(true);
      semanticRoute.setAccessible(true);
      List<RetrievalPipeline.Candidate> kw =
          (List<RetrievalPipeline.Candidate>) keywordRoute.invoke(null, keywordLines, agent, idByHash);
      List<RetrievalPipeline.Candidate> rec =
          (List<RetrievalPipeline.Candidate>) recencyRoute.invoke(null, unique, agent, idByHash);
      List<RetrievalPipeline.Candidate> sem = List.of();
      boolean degraded = false;
      try {
        sem = (List<RetrievalPipeline.Candidate>) semanticRoute.invoke(engine, agent, keyword, idByHash);
      } catch (InvocationTargetException e) {
        if (!(e.getCause() instanceof RuntimeException)) {
          throw e;
        }
        degraded = true;
      }
      double[] weights = (double[]) field(engine, "weights");
      int topK = (Integer) field(engine, "topK");
      List<Map<String, Object>> fused = new ArrayList<>();
      for (RetrievalPipeline.Fused f : RetrievalPipeline.fuseByRank(topK, weights, sem, kw, rec)) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("line", contentById.get(f.id()));
        m.put("score", f.score());
        fused.add(m);
      }
      List<Map<String, Object>> semantic = new ArrayList<>();
      for (RetrievalPipeline.Candidate s : sem) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("line", contentById.get(s.id()));
        m.put("cosine", s.score());
        semantic.add(m);
      }
      return new Routes(semantic, kw.stream().map(k -> contentById.get(k.id())).toList(),
          rec.stream().map(k -> contentById.get(k.id())).toList(), degraded, fused);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the engine's routes are out of reach", e);
    }
  }

  private static Object field(Object target, String name) throws ReflectiveOperationException {
    Field f = target.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(target);
  }

  /** memory_vectors as stored, in id order; the embedding blob as base64. */
  private static List<Map<String, Object>> vectorRows(Connection conn) throws Exception {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, entry_hash, agent_name, content, embedding, dim, embedding_model, "
                    + "entry_time FROM memory_vectors ORDER BY id")) {
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", rs.getLong(1));
        row.put("entry_hash", rs.getString(2));
        row.put("agent_name", rs.getString(3));
        row.put("content", rs.getString(4));
        row.put("embedding", Base64.getEncoder().encodeToString(rs.getBytes(5)));
        row.put("dim", rs.getInt(6));
        row.put("embedding_model", rs.getString(7));
        row.put("entry_time", rs.getObject(8));
        rows.add(row);
      }
    }
    return rows;
  }

  /** Runs one call with the agent set, as the runtime's ToolExecutor sets it for a tool. */
  private static <T> T withAgent(String agent, Supplier<T> body) {
    ToolExecutionContext.setAgentName(agent);
    try {
      return body.get();
    } finally {
      ToolExecutionContext.clear();
    }
  }
}
