package io.oryxos.reference;

import io.oryxos.storage.MemoryEntry;
import io.oryxos.storage.MemoryEntryRepository;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.domain.Pageable;

/**
 * The runtime's repository interface served by plain SQL over sqlite-jdbc: each method runs
 * the query Spring Data derives from its name (or the JPQL of its @Query, translated one to one:
 * {@code LOWER(m.content) LIKE :pattern ORDER BY m.id ASC}, no ESCAPE clause), so SQLite's own
 * {@code lower()} and {@code LIKE} decide what matches, as they do under Hibernate.
 */
final class JdbcMemoryEntryRepository implements MemoryEntryRepository {

  private static final String COLUMNS = "SELECT id, agent_name, scope, content, created_at FROM memory_entries ";

  private final Connection conn;

  JdbcMemoryEntryRepository(Connection conn) {
    this.conn = conn;
  }

  @Override
  public List<MemoryEntry> findByAgentNameAndScopeOrderByIdAsc(String agentName, String scope) {
    return query(COLUMNS + "WHERE agent_name = ? AND scope = ? ORDER BY id ASC", agentName, scope);
  }

  @Override
  public List<MemoryEntry> findByAgentNameAndScopeOrderByIdDesc(
      String agentName, String scope, Pageable pageable) {
    return query(
        COLUMNS + "WHERE agent_name = ? AND scope = ? ORDER BY id DESC LIMIT ? OFFSET ?",
        agentName,
        scope,
        pageable.getPageSize(),
        (long) pageable.getPageNumber() * pageable.getPageSize());
  }

  @Override
  public List<MemoryEntry> searchArchival(String agentName, String pattern) {
    return query(
        COLUMNS
            + "WHERE agent_name = ? AND scope = 'ARCHIVAL' AND lower(content) LIKE ? ORDER BY id ASC",
        agentName,
        pattern);
  }

  @Override
  public <S extends MemoryEntry> S save(S entity) {
    throw new UnsupportedOperationException("the reference run writes rows itself");
  }

  private List<MemoryEntry> query(String sql, Object... args) {
    try (PreparedStatement st = conn.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        st.setObject(i + 1, args[i]);
      }
      List<MemoryEntry> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          MemoryEntry e = new MemoryEntry();
          set(e, "id", rs.getLong(1));
          e.setAgentName(rs.getString(2));
          e.setScope(rs.getString(3));
          e.setContent(rs.getString(4));
          set(e, "createdAt", Instant.ofEpochMilli(rs.getLong(5)));
          out.add(e);
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The entity has no setters for what the database assigns; fill them as JPA would. */
  private static void set(MemoryEntry e, String field, Object value) {
    try {
      Field f = MemoryEntry.class.getDeclaredField(field);
      f.setAccessible(true);
      f.set(e, value);
    } catch (ReflectiveOperationException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
