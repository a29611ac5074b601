package io.oryxos.reference;

import io.oryxos.storage.MemoryVectorEntity;
import io.oryxos.storage.MemoryVectorRepository;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The runtime's memory_vectors repository served by plain SQL over sqlite-jdbc, over the table
 * of the runtime's schema.sql. Each method runs what Spring Data derives from its name: the
 * finders have no ORDER BY (as derived queries have none), the derived deletes remove exactly the
 * rows their finder would load, and save inserts a new entity (after its @PrePersist) or updates
 * every column of a loaded one.
 *
 * <p>Instants are bound as sqlite-jdbc binds a Timestamp under Hibernate's SQLite dialect: epoch
 * milliseconds in an INTEGER.
 */
final class JdbcMemoryVectorRepository implements MemoryVectorRepository {

  private static final String COLUMNS =
      "SELECT id, entry_hash, agent_name, content, embedding, dim, embedding_model, entry_time, "
          + "created_at FROM memory_vectors ";

  private final Connection conn;

  JdbcMemoryVectorRepository(Connection conn) {
    this.conn = conn;
  }

  @Override
  public List<MemoryVectorEntity> findByAgentName(String agentName) {
    return query(COLUMNS + "WHERE agent_name = ?", agentName);
  }

  @Override
  public Optional<MemoryVectorEntity> findByAgentNameAndEntryHash(String agentName, String entryHash) {
    List<MemoryVectorEntity> rows =
        query(COLUMNS + "WHERE agent_name = ? AND entry_hash = ?", agentName, entryHash);
    return rows.stream().findFirst();
  }

  @Override
  public void deleteByAgentNameAndEntryHashIn(String agentName, Collection<String> entryHashes) {
    for (String hash : entryHashes) {
      update("DELETE FROM memory_vectors WHERE agent_name = ? AND entry_hash = ?", agentName, hash);
    }
  }

  @Override
  public void deleteByEmbeddingModelNot(String embeddingModel) {
    update("DELETE FROM memory_vectors WHERE embedding_model <> ?", embeddingModel);
  }

  @Override
  public <S extends MemoryVectorEntity> S save(S entity) {
    Object entryTime = millis(entity.getEntryTime());
    if (entity.getId() == null) {
      prePersist(entity);
      try (PreparedStatement st =
          conn.prepareStatement(
              "INSERT INTO memory_vectors(entry_hash, agent_name, content, embedding, dim, "
                  + "embedding_model, entry_time, created_at) VALUES (?,?,?,?,?,?,?,?)",
              Statement.RETURN_GENERATED_KEYS)) {
        bind(st, entity.getEntryHash(), entity.getAgentName(), entity.getContent(),
            entity.getEmbedding(), entity.getDim(), entity.getEmbeddingModel(), entryTime,
            millis(entity.getCreatedAt()));
        st.executeUpdate();
        try (ResultSet keys = st.getGeneratedKeys()) {
          keys.next();
          set(entity, "id", keys.getLong(1));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    } else {
      update(
          "UPDATE memory_vectors SET entry_hash = ?, agent_name = ?, content = ?, embedding = ?, "
              + "dim = ?, embedding_model = ?, entry_time = ?, created_at = ? WHERE id = ?",
          entity.getEntryHash(), entity.getAgentName(), entity.getContent(), entity.getEmbedding(),
          entity.getDim(), entity.getEmbeddingModel(), entryTime, millis(entity.getCreatedAt()),
          entity.getId());
    }
    return entity;
  }

  private static Object millis(Instant t) {
    return t == null ? null : t.toEpochMilli();
  }

  private List<MemoryVectorEntity> query(String sql, Object... args) {
    try (PreparedStatement st = conn.prepareStatement(sql)) {
      bind(st, args);
      List<MemoryVectorEntity> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          MemoryVectorEntity e = new MemoryVectorEntity();
          set(e, "id", rs.getLong(1));
          e.setEntryHash(rs.getString(2));
          e.setAgentName(rs.getString(3));
          e.setContent(rs.getString(4));
          e.setEmbedding(rs.getBytes(5));
          e.setDim(rs.getInt(6));
          e.setEmbeddingModel(rs.getString(7));
          long entryTime = rs.getLong(8);
          e.setEntryTime(rs.wasNull() ? null : Instant.ofEpochMilli(entryTime));
          set(e, "createdAt", Instant.ofEpochMilli(rs.getLong(9)));
          out.add(e);
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void update(String sql, Object... args) {
    try (PreparedStatement st = conn.prepareStatement(sql)) {
      bind(st, args);
      st.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void bind(PreparedStatement st, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      if (args[i] == null) {
        st.setNull(i + 1, Types.NULL);
      } else if (args[i] instanceof byte[] bytes) {
        st.setBytes(i + 1, bytes);
      } else {
        st.setObject(i + 1, args[i]);
      }
    }
  }

  /** JPA runs the entity's @PrePersist callback before the insert. */
  private static void prePersist(MemoryVectorEntity e) {
    try {
      Method m = MemoryVectorEntity.class.getDeclaredMethod("onCreate");
      m.setAccessible(true);
      m.invoke(e);
    } catch (ReflectiveOperationException ex) {
      throw new IllegalStateException(ex);
    }
  }

  /** The entity has no setters for what the database assigns; fill them as JPA would. */
  private static void set(MemoryVectorEntity e, String field, Object value) {
    try {
      Field f = MemoryVectorEntity.class.getDeclaredField(field);
      f.setAccessible(true);
      f.set(e, value);
    } catch (ReflectiveOperationException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
