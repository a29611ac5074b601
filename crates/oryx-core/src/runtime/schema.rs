//! The runtime's whole schema, for writing a database as the runtime's first start leaves it
//! (the sample install, tests of the runtime's tables). Data, not logic: the tables and indexes
//! of `oryxos-storage/src/main/resources/schema.sql` at runtime version a27474c, comments left
//! out. The three tables the console itself reads and writes are `db::RUNTIME_SCHEMA`; the
//! rest are here.

use rusqlite::Connection;

use crate::db::RUNTIME_SCHEMA;

/// Creates every table and index of the runtime's schema that is missing.
pub fn create(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(RUNTIME_SCHEMA)?;
    conn.execute_batch(OTHER_TABLES)
}

/// The runtime's tables beyond [`RUNTIME_SCHEMA`].
const OTHER_TABLES: &str = "
CREATE TABLE IF NOT EXISTS llm_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id VARCHAR(255) NOT NULL,
    provider VARCHAR(64) NOT NULL,
    model VARCHAR(128) NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    total_tokens INTEGER,
    success BOOLEAN NOT NULL,
    error_message TEXT,
    duration_ms INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_llm_calls_session ON llm_calls (session_id);
CREATE TABLE IF NOT EXISTS scheduled_tasks (
    schedule_id VARCHAR(36) PRIMARY KEY,
    profile_name VARCHAR(255) NOT NULL,
    schedule_key VARCHAR(255) NOT NULL,
    display_name VARCHAR(255) NOT NULL,
    cron VARCHAR(128) NOT NULL,
    zone VARCHAR(64),
    message TEXT,
    enabled BOOLEAN NOT NULL DEFAULT 1,
    retired BOOLEAN NOT NULL DEFAULT 0,
    next_run_at TIMESTAMP,
    last_run_at TIMESTAMP,
    last_status VARCHAR(16),
    run_count INTEGER NOT NULL DEFAULT 0,
    updated_at TIMESTAMP NOT NULL,
    UNIQUE (profile_name, schedule_key)
);
CREATE TABLE IF NOT EXISTS task_executions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    schedule_id VARCHAR(36),
    legacy_task_key VARCHAR(255),
    legacy_migrated BOOLEAN NOT NULL DEFAULT 0,
    session_id VARCHAR(512),
    started_at TIMESTAMP NOT NULL,
    success BOOLEAN NOT NULL,
    error_message TEXT,
    duration_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_executions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_name VARCHAR(255) NOT NULL,
    source VARCHAR(32) NOT NULL,
    session_id VARCHAR(512),
    started_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP,
    success BOOLEAN,
    error_message TEXT,
    duration_ms INTEGER
);
CREATE INDEX IF NOT EXISTS idx_agent_executions_agent ON agent_executions (agent_name);
CREATE TABLE IF NOT EXISTS memory_vectors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_hash VARCHAR(64) NOT NULL,
    agent_name VARCHAR(128) NOT NULL,
    content TEXT NOT NULL,
    embedding BLOB NOT NULL,
    dim INTEGER NOT NULL,
    embedding_model VARCHAR(128) NOT NULL,
    entry_time TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (agent_name, entry_hash)
);
CREATE INDEX IF NOT EXISTS idx_memvec_agent ON memory_vectors (agent_name);
CREATE TABLE IF NOT EXISTS notify_channels (
    name VARCHAR(128) PRIMARY KEY,
    type VARCHAR(32) NOT NULL,
    url TEXT NOT NULL,
    description TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS providers (
    name VARCHAR(128) PRIMARY KEY,
    api_key TEXT,
    base_url TEXT,
    description TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS sandbox_whitelist (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    category VARCHAR(16) NOT NULL,
    entry_value TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (category, entry_value)
);
CREATE TABLE IF NOT EXISTS web_users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    username VARCHAR(64) NOT NULL UNIQUE,
    password_hash VARCHAR(255) NOT NULL,
    enabled BOOLEAN NOT NULL DEFAULT 1,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_web_users_username ON web_users (username);
CREATE TABLE IF NOT EXISTS web_sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id VARCHAR(64) NOT NULL UNIQUE,
    username VARCHAR(64) NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_web_sessions_session ON web_sessions (session_id);
CREATE TABLE IF NOT EXISTS knowledge_documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kb_name VARCHAR(128) NOT NULL,
    rel_path VARCHAR(512) NOT NULL,
    content_sha256 VARCHAR(64) NOT NULL,
    status VARCHAR(16) NOT NULL,
    failure_reason TEXT,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    generation INTEGER NOT NULL DEFAULT 0,
    indexed_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    UNIQUE (kb_name, rel_path, generation)
);
CREATE INDEX IF NOT EXISTS idx_kdoc_kb ON knowledge_documents (kb_name, generation);
CREATE TABLE IF NOT EXISTS knowledge_chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id INTEGER NOT NULL,
    kb_name VARCHAR(128) NOT NULL,
    seq INTEGER NOT NULL,
    page_no INTEGER,
    content TEXT NOT NULL,
    embedding BLOB,
    dim INTEGER,
    embedding_model VARCHAR(128),
    generation INTEGER NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_kchunk_kb ON knowledge_chunks (kb_name, generation);
CREATE INDEX IF NOT EXISTS idx_kchunk_doc ON knowledge_chunks (document_id);
";
