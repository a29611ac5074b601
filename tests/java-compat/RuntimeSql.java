// Plays the OryxOS Java runtime's side of the shared database with sqlite-jdbc (the driver the
// runtime uses), on a database the console has used: the runtime's own INSERT / SELECT /
// UPDATE / DELETE on memory_entries and sessions must keep working. Run by crates/oryx-core/tests/java_compat.rs:
//   java -cp /usr/share/java/sqlite-jdbc.jar tests/java-compat/RuntimeSql.java DB
// Prints one line per check; exits non-zero on the first failure.

import java.sql.*;

public class RuntimeSql {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0])) {
            c.createStatement().execute("PRAGMA busy_timeout = 5000");
            System.out.println("sqlite " + c.getMetaData().getDatabaseProductVersion());
            long now = System.currentTimeMillis();
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO memory_entries(agent_name, scope, content, created_at) VALUES (?, ?, ?, ?)")) {
                String[][] rows = {
                    {"assistant", "ARCHIVAL", "java wrote this: 部署到 kubernetes 集群"},
                    {"assistant", "CORE", "java core fact"},
                    {"assistant", "ARCHIVAL", "java row to update"},
                    {"assistant", "ARCHIVAL", "java row to delete"},
                };
                for (int i = 0; i < rows.length; i++) {
                    p.setString(1, rows[i][0]);
                    p.setString(2, rows[i][1]);
                    p.setString(3, rows[i][2]);
                    p.setLong(4, now + i);
                    p.executeUpdate();
                }
            }
            System.out.println("insert ok");
            try (PreparedStatement p = c.prepareStatement(
                    "UPDATE memory_entries SET content = ? WHERE content = ?")) {
                p.setString(1, "java row updated: rollback plan");
                p.setString(2, "java row to update");
                check(p.executeUpdate() == 1, "update one row");
            }
            try (PreparedStatement p = c.prepareStatement("DELETE FROM memory_entries WHERE content = ?")) {
                p.setString(1, "java row to delete");
                check(p.executeUpdate() == 1, "delete one row");
            }
            System.out.println("update/delete ok");
            int n = 0;
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT content, created_at FROM memory_entries WHERE agent_name = ? AND scope = ? ORDER BY created_at, id")) {
                p.setString(1, "assistant");
                p.setString(2, "ARCHIVAL");
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) n++;
                }
            }
            check(n > 0, "select archival rows");
            System.out.println("select ok: " + n + " archival rows");
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO sessions(session_id, profile_name, channel, user_id, messages_json, status, created_at, last_active_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                p.setString(1, "java:compat:1");
                p.setString(2, "assistant");
                p.setString(3, "cli");
                p.setString(4, "u");
                p.setString(5, "[{\"role\":\"user\",\"content\":\"hi\"}]");
                p.setString(6, "active");
                p.setLong(7, now);
                p.setLong(8, now);
                p.executeUpdate();
            }
            try (PreparedStatement p = c.prepareStatement(
                    "UPDATE sessions SET messages_json = ?, last_active_at = ? WHERE session_id = ?")) {
                p.setString(1, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"hello\"}]");
                p.setLong(2, now + 10);
                p.setString(3, "java:compat:1");
                check(p.executeUpdate() == 1, "update session");
            }
            System.out.println("sessions ok");
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("FAILED: " + what);
            System.exit(1);
        }
    }
}
