package io.oryxos.reference;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.oryxos.core.agent.ToolExecutionContext;
import io.oryxos.memory.LongTermMemoryStore;
import io.oryxos.memory.MarkdownMemoryStore;
import io.oryxos.memory.MemoryServiceImpl;
import io.oryxos.memory.SqliteMemoryStore;
import io.oryxos.memory.builtin.MemoryTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Builds memory fixtures, runs the runtime's own memory classes over them (the markdown and
 * sqlite stores behind the runtime's MemoryServiceImpl, without an embedding provider, and its
 * recall_memory tool; with one, its fused recall: {@link RecallCases}) and writes what they
 * answer as JSON.
 *
 * <p>Arguments: the runtime's schema.sql, the output file, a work directory, the runtime commit.
 *
 * <p>A window cut inside a surrogate pair leaves half of it in the Java string; JSON (and UTF-8)
 * cannot carry that, so such a half is written as U+FFFD and counted in {@code loneSurrogates}.
 */
public final class ReferenceDriver {

  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final LocalDateTime START = LocalDateTime.of(2026, 3, 1, 8, 0, 0);
  private static final int WINDOW = 4000;

  private ReferenceDriver() {}

  public static void main(String[] args) throws Exception {
    Path schema = Path.of(args[0]);
    Path out = Path.of(args[1]);
    Path work = Path.of(args[2]);
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("runtimeCommit", args.length > 3 ? args[3] : "");
    root.put("loneSurrogate", "U+FFFD");
    root.put("markdown", markdownCases(work.resolve("markdown")));
    root.put("sqlite", sqliteCases(schema, work.resolve("sqlite.db")));
    root.put("mockEmbedding", mockEmbeddingCases());
    // The markdown store reads entry times in the JVM's zone (make_reference.sh runs it in UTC).
    root.put("timezone", java.time.ZoneId.systemDefault().getId());
    root.put("recall", RecallCases.build(schema, work.resolve("recall")));
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), root);
  }

  // ---------------------------------------------------------------- mock embedding

  /** The runtime's `mock` provider's vectors, each float as its IEEE bits (exact to compare). */
  private static List<Map<String, Object>> mockEmbeddingCases() {
    io.oryxos.provider.MockEmbeddingModel model = new io.oryxos.provider.MockEmbeddingModel();
    List<String> texts =
        List.of(
            "",
            "a",
            "用户住在北京",
            "- [2026-03-01 08:00:00] deploy to the kubernetes cluster",
            "emoji 😀 and CJK 记忆 mixed",
            "alpha|ARCHIVAL|the same text twice",
            "x".repeat(5000));
    List<Map<String, Object>> out = new ArrayList<>();
    for (String text : texts) {
      float[] v = model.embed(text);
      List<String> bits = new ArrayList<>();
      for (float f : v) {
        bits.add(String.format("%08x", Float.floatToRawIntBits(f)));
      }
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("text", text);
      c.put("modelId", model.modelId());
      c.put("dimensions", model.dimensions());
      c.put("bits", bits);
      // The memory_vectors.embedding blob the runtime writes for it.
      StringBuilder blob = new StringBuilder();
      for (byte b : io.oryxos.core.embedding.VectorCodec.encode(v)) {
        blob.append(String.format("%02x", b));
      }
      c.put("blobHex", blob.toString());
      out.add(c);
    }
    return out;
  }

  // ---------------------------------------------------------------- markdown

  private static final List<String> MD_KEYWORDS =
      List.of(
          "tea", "TEA", "2026-03-01 09", "[2026-03-02", "记忆", "😀", "- [", "Ärger", "ärger",
          "x]", "absent", "");

  private static List<Map<String, Object>> markdownCases(Path dir) throws Exception {
    List<Map<String, Object>> cases = new ArrayList<>();
    List<String> core =
        List.of(line(0, "User prefers Tea over coffee"), line(1, "核心：回答要简洁"), line(2, "ÄRGER vermeiden"));
    cases.add(markdownCase(dir, "whole", core, archive(6, i -> "short note " + i + " about tea"), s -> true));
    // Lines as the runtime's append writes them: content stripped, so no line ends in a space.
    IntFunction<String> mixed = i -> "entry " + i + " 归档记忆内容 Tea time y" + "y".repeat(i % 11);
    cases.add(
        markdownCase(dir, "cut-inside-entry", core, archive(90, mixed), s -> {
          char c = s.charAt(s.length() - WINDOW);
          char before = s.charAt(s.length() - WINDOW - 1);
          return c != '\n' && before != '\n' && !Character.isSurrogate(c);
        }));
    IntFunction<String> emoji = i -> "emoji " + i + " 😀😀😀 记忆 🎉" + "🎉".repeat(i % 5);
    cases.add(
        markdownCase(dir, "cut-inside-surrogate-pair", core, archive(90, emoji),
            s -> Character.isLowSurrogate(s.charAt(s.length() - WINDOW))));
    cases.add(
        markdownCase(dir, "cut-at-line-break", List.of(), archive(90, mixed),
            s -> s.charAt(s.length() - WINDOW) == '\n'));
    cases.add(
        markdownCase(dir, "cut-at-entry-start", core, archive(90, mixed),
            s -> s.charAt(s.length() - WINDOW - 1) == '\n'));
    cases.add(
        markdownCase(dir, "newest-entry-longer-than-window", core,
            List.of(line(0, "old one"), line(1, "long " + "记😀z".repeat(1500))), s -> true));
    handEditedCases(dir, cases, core, mixed);
    return cases;
  }

  private static final List<String> HAND_KEYWORDS =
      List.of("tea", "TEA", "notes", "## ", " ", "pad", "after", "core later", "- [", "");

  /**
   * Files edited by hand: the runtime reads raw section text, so blank lines, trailing spaces,
   * line endings, other headings and duplicate headings all change what it cuts.
   */
  private static void handEditedCases(
      Path dir, List<Map<String, Object>> cases, List<String> core, IntFunction<String> mixed)
      throws Exception {
    List<String> arch = archive(90, mixed);
    String coreText = String.join("\n", core);
    // Trailing spaces, blank lines, an indented entry, whitespace after the last entry.
    StringBuilder spaced = new StringBuilder();
    for (int i = 0; i < arch.size(); i++) {
      String l = arch.get(i);
      spaced.append(i % 5 == 4 ? "  " + l : l).append(i % 3 == 0 ? "   " : "").append('\n');
      if (i % 7 == 0) {
        spaced.append(i % 2 == 0 ? "\n" : " \t \n");
      }
    }
    cases.add(rawCase(dir, "hand-trailing-spaces-and-blank-lines",
        "## 核心记忆  \n\n" + coreText + "  \n\n## 归档记忆\n\n" + spaced + "\n   \n\n", HAND_KEYWORDS));
    cases.add(rawCase(dir, "hand-crlf",
        ("## 核心记忆\n" + coreText + "\n## 归档记忆\n" + String.join("\n", arch) + "\n")
            .replace("\n", "\r\n"), HAND_KEYWORDS));
    List<String> withNotes = new ArrayList<>(arch);
    withNotes.add(80, "## Notes on tea");
    withNotes.add(81, "free text under another heading");
    withNotes.add(40, "### 核心记忆");
    cases.add(rawCase(dir, "hand-foreign-heading",
        "## 核心记忆\n" + coreText + "\n## 归档记忆\n" + String.join("\n", withNotes) + "\n", HAND_KEYWORDS));
    cases.add(rawCase(dir, "hand-second-archival-heading",
        "## 核心记忆\n" + coreText + "\n## 归档记忆\n" + String.join("\n", arch)
            + "\n## 归档记忆\n" + line(200, "after the second heading, tea") + "\n", HAND_KEYWORDS));
    cases.add(rawCase(dir, "hand-core-after-archival",
        "## 归档记忆\n" + String.join("\n", arch) + "\n## 核心记忆 \n" + line(201, "core later") + "\n",
        HAND_KEYWORDS));
    cases.add(rawCase(dir, "hand-bom",
        "\uFEFF## 核心记忆\n" + coreText + "\n## 归档记忆\n" + String.join("\n", arch) + "\n", HAND_KEYWORDS));
    cases.add(rawCase(dir, "hand-console-dialect-headings",
        "## Core\n" + coreText + "\n## 归档记忆\n" + String.join("\n", arch)
            + "\n   ## 归档记忆   \n" + line(202, "after an indented heading, tea")
            + "\n## Archival\n" + line(203, "after a dialect heading, tea") + "\n", HAND_KEYWORDS));
    cases.add(rawCase(dir, "hand-short-mixed-endings",
        "## 核心记忆\r\n" + coreText + "\r\n## 归档记忆 \t\r\n\r\n" + line(3, "tea one  ") + "\r\n"
            + line(4, "two\rtea inside a carriage return") + "\n\n  " + line(5, "tea three") + "\t \n",
        HAND_KEYWORDS));
  }

  /** A file as written by hand, read by the runtime's store. */
  private static Map<String, Object> rawCase(Path dir, String name, String file, List<String> keywords)
      throws Exception {
    Path agentDir = dir.resolve(name).resolve("agents").resolve("alpha");
    Files.createDirectories(agentDir);
    Files.writeString(agentDir.resolve("MEMORY.md"), file, StandardCharsets.UTF_8);
    LongTermMemoryStore store = new MarkdownMemoryStore(dir.resolve(name));
    // The section the runtime cuts, by its own method.
    java.lang.reflect.Method extract =
        MarkdownMemoryStore.class.getDeclaredMethod("extractSection", String.class, String.class);
    extract.setAccessible(true);
    String section = (String) extract.invoke(null, file, "## 归档记忆");
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", name);
    c.put("agent", "alpha");
    c.put("file", file);
    c.put("archivalUtf16Length", section.length());
    putRuns(c, store, "alpha", keywords);
    return c;
  }

  private static String line(int minute, String content) {
    return "- [" + START.plusMinutes(minute * 37L).format(TS) + "] " + content;
  }

  private static List<String> archive(int n, IntFunction<String> content) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lines.add(line(i + 3, content.apply(i)));
    }
    return lines;
  }

  /**
   * Writes the file as the runtime's append lays it out, padding the newest entry until the
   * archival text meets {@code where} (where the 4000-unit cut falls).
   */
  private static Map<String, Object> markdownCase(
      Path dir, String name, List<String> core, List<String> archive, Predicate<String> where)
      throws Exception {
    List<String> lines = new ArrayList<>(archive);
    String newest = lines.removeLast();
    String archiveText = null;
    for (int pad = 0; pad < 64; pad++) {
      String text = String.join("\n", lines) + (lines.isEmpty() ? "" : "\n") + newest + " pad" + "p".repeat(pad);
      if (text.length() <= WINDOW || where.test(text)) {
        archiveText = text;
        break;
      }
    }
    if (archiveText == null) {
      throw new IllegalStateException("no padding puts the cut where " + name + " wants it");
    }
    String file = "## 核心记忆\n" + String.join("\n", core) + "\n## 归档记忆\n" + archiveText;
    Path agentDir = dir.resolve(name).resolve("agents").resolve("alpha");
    Files.createDirectories(agentDir);
    Files.writeString(agentDir.resolve("MEMORY.md"), file, StandardCharsets.UTF_8);
    LongTermMemoryStore store = new MarkdownMemoryStore(dir.resolve(name));
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("name", name);
    c.put("agent", "alpha");
    c.put("file", file);
    c.put("archivalUtf16Length", archiveText.length());
    putRuns(c, store, "alpha", MD_KEYWORDS);
    return c;
  }

  // ---------------------------------------------------------------- sqlite

  private static final List<String> SQL_KEYWORDS =
      List.of("tea", "TEA", "ärger", "ÄRGER", "50%", "a_b", "%", "偏好", "Note 1", "absent", "");

  private static List<Map<String, Object>> sqliteCases(Path schema, Path db) throws Exception {
    Files.deleteIfExists(db);
    List<Map<String, Object>> rows = new ArrayList<>();
    try (Connection conn = DriverManager.getConnection("jdbc:sqlite:" + db)) {
      try (Statement st = conn.createStatement()) {
        st.execute(memoryEntriesTable(Files.readString(schema)));
      }
      long id = 0;
      long baseMs = 1_772_352_000_000L; // 2026-03-01T08:00:00Z
      for (int i = 0; i < 140; i++) {
        String agent = i % 13 == 7 ? "beta" : i % 29 == 3 ? "__global__" : "alpha";
        String scope = i % 17 == 2 ? "CORE" : "ARCHIVAL";
        String content =
            switch (i % 6) {
              case 0 -> "Note " + i + " about Tea";
              case 1 -> "用户偏好 " + i;
              case 2 -> "ÄRGER " + i + " Ärger ärger";
              case 3 -> i + " is 50% done";
              case 4 -> "a_b " + i;
              default -> "axb " + i + " 😀";
            };
        // Time runs backwards now and then: the runtime orders by id alone.
        long created = baseMs + (i % 10 == 9 ? -i : i) * 60_000L;
        id++;
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
        row.put("agentName", agent);
        row.put("scope", scope);
        row.put("content", content);
        row.put("createdAtMs", created);
        rows.add(row);
      }
      LongTermMemoryStore store = new SqliteMemoryStore(new JdbcMemoryEntryRepository(conn));
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("name", "rows-over-100");
      c.put("rows", rows);
      List<Map<String, Object>> runs = new ArrayList<>();
      for (String agent : new String[] {"alpha", "beta", null}) {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("agent", agent);
        putRuns(run, store, agent, SQL_KEYWORDS);
        runs.add(run);
      }
      c.put("agents", runs);
      return List.of(c);
    }
  }

  /** The memory_entries statement of the runtime's schema.sql, as it stands there. */
  private static String memoryEntriesTable(String schema) {
    int from = schema.indexOf("CREATE TABLE IF NOT EXISTS memory_entries");
    int to = schema.indexOf(';', from);
    if (from < 0 || to < 0) {
      throw new IllegalStateException("memory_entries is not in the schema");
    }
    // The agent column comes from the runtime's schema upgrade on old databases; the statement
    // of a current schema already has it.
    return schema.substring(from, to);
  }

  // ---------------------------------------------------------------- runs

  /** The prompt's memory block (the facade's read path) and the recall tool's answers. */
  private static void putRuns(
      Map<String, Object> into, LongTermMemoryStore store, String agent, List<String> keywords) {
    MemoryServiceImpl service = new MemoryServiceImpl(store);
    String load = service.readAll(agent);
    into.put("load", wellFormed(load));
    into.put("loadUtf16Length", load.length());
    into.put("loneSurrogates", loneSurrogates(load));
    MemoryTools tools = new MemoryTools(service);
    List<Map<String, Object>> recalls = new ArrayList<>();
    for (String keyword : keywords) {
      // The tool path runs with the agent set, as the runtime's ToolExecutor sets it.
      if (agent == null) {
        ToolExecutionContext.clear();
      } else {
        ToolExecutionContext.setAgentName(agent);
      }
      String answer;
      try {
        answer = tools.recallMemory(keyword);
      } finally {
        ToolExecutionContext.clear();
      }
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("keyword", keyword);
      r.put("answer", wellFormed(answer));
      recalls.add(r);
    }
    into.put("recall", recalls);
  }

  private static int loneSurrogates(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        n++;
      }
    }
    return n;
  }

  private static String wellFormed(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        b.append(c).append(s.charAt(i + 1));
        i++;
      } else if (Character.isSurrogate(c)) {
        b.append('\uFFFD');
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
