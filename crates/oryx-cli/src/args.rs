//! The command line: every subcommand, flag and value `oryx` accepts (clap derives the parser
//! and `--help` from these types).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "oryx",
    version,
    about = "OryxOS memory console: agents, memory, sessions and prompts from the command line"
)]
pub struct Args {
    /// The .oryxos root (default: settings, then $ORYXOS_ROOT, then ~/.oryxos)
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) root: Option<PathBuf>,
    /// The runtime's SQLite database (default: <root>/oryxos.db; env ORYXOS_DB)
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) db: Option<PathBuf>,
    /// Long-term memory backend for this run
    #[arg(long, global = true, value_enum)]
    pub(crate) backend: Option<BackendArg>,
    /// Settings file (default: the OS config dir, or $ORYXOS_CONFIG_DIR/settings.json)
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) config: Option<PathBuf>,
    /// Base URL of the mem0 service for the mem0 backend (env MEM0_BASE_URL)
    #[arg(long, global = true, value_name = "URL")]
    pub(crate) mem0_url: Option<String>,
    /// Print JSON instead of text
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// Create the root (and its agents/ folder) when it does not exist or is not a root yet
    #[arg(long, global = true)]
    pub(crate) create_root: bool,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum BackendArg {
    Markdown,
    Sqlite,
    Mem0,
}

#[derive(Subcommand, Debug)]
pub(crate) enum SupersededCmd {
    /// Keep the newer or the older entry of a pair (the other is deleted, as one change that
    /// `memory undo` takes back), or keep both (the pair is not shown again)
    Resolve {
        #[arg(long, value_enum)]
        keep: KeepArg,
        #[arg(value_name = "OLDER_ID")]
        older: String,
        #[arg(value_name = "NEWER_ID")]
        newer: String,
    },
    /// Show a pair kept both again
    Unkeep {
        #[arg(value_name = "OLDER_ID")]
        older: String,
        #[arg(value_name = "NEWER_ID")]
        newer: String,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum KeepArg {
    Newer,
    Older,
    Both,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ScopeArg {
    Core,
    Archival,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum StatusArg {
    Active,
    Archived,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ToolArg {
    #[value(name = "save_memory")]
    SaveMemory,
    #[value(name = "recall_memory")]
    RecallMemory,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// List agents with their memory counts and warnings (--archived: the archived ones)
    Agents {
        #[arg(long)]
        archived: bool,
    },
    /// Show one agent (`oryx agent NAME`), or create, change, archive and restore agents
    #[command(args_conflicts_with_subcommands = true)]
    Agent {
        #[command(subcommand)]
        cmd: Option<AgentCmd>,
        /// The agent to show
        name: Option<String>,
    },
    /// The user's files at the top of the root (USER.md, AGENTS.md, SOUL.md, ...)
    #[command(subcommand)]
    File(FileCmd),
    /// Long-term memory of an agent (or the global memory without --agent)
    #[command(subcommand)]
    Memory(MemoryCmd),
    /// List sessions, newest first
    Sessions {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long, value_enum)]
        status: Option<StatusArg>,
        #[arg(long, default_value_t = 50)]
        limit: u32,
        #[arg(long, default_value_t = 0)]
        offset: u32,
        /// Only sessions whose id, user id or a message's text contains this (any case)
        #[arg(long)]
        search: Option<String>,
    },
    /// Show one session as a conversation, with its tool invocations
    Session { id: String },
    /// The prompt an agent would receive: parts [1]-[4]
    Prompt {
        #[arg(long)]
        agent: String,
        #[arg(long)]
        session: Option<String>,
        /// The message the episodic part is chosen for (default: the session's last user
        /// message; only when episodic memory is on in Settings)
        #[arg(long, value_name = "TEXT")]
        query: Option<String>,
        /// Prompt replay: the prompt as it was built at that moment (yyyy-MM-dd[ HH:mm[:ss]]):
        /// memory as it stood then; with --session, its history up to --message
        #[arg(long, value_name = "TIME")]
        asof: Option<String>,
        /// With --asof: the history ends at this message of the session (1 = the first)
        #[arg(
            long,
            value_name = "N",
            requires = "asof",
            requires = "session",
            value_parser = clap::value_parser!(u32).range(1..)
        )]
        message: Option<u32>,
    },
    /// Episodic memory: an agent's past sessions, searched by meaning
    #[command(subcommand)]
    Episodic(EpisodicCmd),
    /// Run a memory tool as the runtime would (invalid agent names fall back to global memory)
    Tool {
        #[arg(value_enum)]
        name: ToolArg,
        #[arg(long)]
        input: String,
        #[arg(long)]
        agent: Option<String>,
        #[arg(long)]
        session: Option<String>,
    },
    /// Append the automatic footprint of one trigger
    Footprint {
        #[arg(long)]
        agent: String,
        #[arg(long)]
        user: String,
        #[arg(long)]
        reply: String,
    },
    /// Write a sample runtime install into PATH: PATH/.oryxos (agents, MEMORY.md files),
    /// PATH/oryxos.db (the runtime's tables) and PATH/config/application.yml
    Demo {
        path: PathBuf,
        /// Write a bare .oryxos root into PATH instead (its database inside it)
        #[arg(long)]
        bare: bool,
    },
    /// The runtime install in effect: its configuration (and each value's source), process,
    /// database and providers; `runtime set KEY VALUE` changes config/application.yml
    Runtime {
        #[command(subcommand)]
        cmd: Option<RuntimeCmd>,
    },
    /// Show the settings in effect
    Settings,
    /// The vector index semantic recall uses
    #[command(subcommand)]
    Index(IndexCmd),
    /// Recall checks: questions an agent must still answer with given entries, run with the
    /// runtime's recall engine
    #[command(subcommand)]
    Checks(ChecksCmd),
    /// Copy memories from one backend to another (missing entries only; the source is untouched)
    Migrate {
        #[arg(long, value_enum)]
        from: BackendArg,
        #[arg(long, value_enum)]
        to: BackendArg,
        /// Only this agent
        #[arg(long, conflicts_with = "all")]
        agent: Option<String>,
        /// Every agent and the global memory
        #[arg(long)]
        all: bool,
        /// Count what would be copied; write nothing
        #[arg(long)]
        dry_run: bool,
        /// After a copy without failures, switch to --to: the runtime's memory.backend for an
        /// install (applies on its next start), the settings' backend for a bare root
        #[arg(long, conflicts_with = "dry_run")]
        switch: bool,
    },
    /// Write agents and their memory (entries, MEMORY.md byte for byte, AGENT.md, skills,
    /// bootstrap files) into one archive
    Export {
        /// An agent to export (repeat for several)
        #[arg(long = "agent", conflicts_with = "all")]
        agents: Vec<String>,
        /// Every agent and the global memory
        #[arg(long)]
        all: bool,
        /// Also the agents' sessions (for reading; an import never writes sessions)
        #[arg(long)]
        sessions: bool,
        /// Also the console's history of changes (MEMORY.md.oryx-history), which keeps the text
        /// of entries deleted or rewritten by the console: off unless asked
        #[arg(long)]
        with_history: bool,
        /// The archive to write (conventionally NAME.oryx.zip)
        #[arg(value_name = "FILE")]
        out: PathBuf,
    },
    /// Read an archive of `oryx export` into the root: entries already present are skipped,
    /// the target's own files are kept unless --overwrite-files. With --from: another tool's
    /// memories (openmemory, mem0, letta, lines) into one owner's memory
    Import {
        #[arg(value_name = "FILE")]
        archive: PathBuf,
        /// Count what would be added; write nothing
        #[arg(long)]
        dry_run: bool,
        /// Into this backend instead of the one in effect
        #[arg(long, value_enum)]
        into_backend: Option<BackendArg>,
        /// Import agent OLD as NEW (repeat for several)
        #[arg(long = "agent-map", value_name = "OLD=NEW", conflicts_with = "from")]
        agent_map: Vec<String>,
        /// Replace AGENT.md, bootstrap and skill files the target holds with the archive's
        #[arg(long, conflicts_with = "from")]
        overwrite_files: bool,
        /// FILE is another tool's: OpenMemory's backup zip, mem0's GET /memories JSON, a Letta
        /// agent file (.af), or lines (text, one memory a line, or a .csv with a content column)
        #[arg(long, value_name = "FORMAT", value_parser = ["openmemory", "mem0", "letta", "lines"], conflicts_with = "into_backend")]
        from: Option<String>,
        /// With --from: into this agent's memory (default: the global memory)
        #[arg(long, requires = "from")]
        agent: Option<String>,
    },
    /// Serve the REST API (and the built UI) over HTTP
    Serve {
        /// Address to listen on; non-loopback addresses need --token
        #[arg(long, default_value = "127.0.0.1:7777")]
        bind: std::net::SocketAddr,
        /// Require `Authorization: Bearer TOKEN` on every API request (env ORYX_TOKEN)
        #[arg(long, env = "ORYX_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Folder of the built UI (default: ui/dist)
        #[arg(long, value_name = "PATH")]
        ui_dir: Option<PathBuf>,
        /// Also answer requests for this Host name (repeatable; NAME or NAME:PORT), e.g. a LAN
        /// name or a reverse proxy's; others are refused (DNS rebinding)
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_hosts: Vec<String>,
        /// A request not answered within this time gets 504 (events and migrate excepted)
        #[arg(long, value_name = "SECS", default_value = "30", value_parser = oryx_server::parse_duration)]
        request_timeout: std::time::Duration,
        /// Open connections at most; more are answered 503
        #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
        max_connections: u32,
        /// Time to send a complete request head, and to keep an idle connection
        #[arg(long, value_name = "SECS", default_value = "10", value_parser = oryx_server::parse_duration, hide = true)]
        header_timeout: std::time::Duration,
        /// Longest pause inside a request body
        #[arg(long, value_name = "SECS", default_value = "10", value_parser = oryx_server::parse_duration, hide = true)]
        body_timeout: std::time::Duration,
        /// After SIGTERM or Ctrl-C, how long open requests may finish
        #[arg(long, value_name = "SECS", default_value = "3", value_parser = oryx_server::parse_duration, hide = true)]
        shutdown_grace: std::time::Duration,
        /// Serve HTTPS with this certificate chain (PEM); needs --tls-key
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The private key of --tls-cert (PEM: PKCS#8, RSA or EC)
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// Console operations running at once (each may hold a database handle)
        #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=400), hide = true)]
        max_workers: u32,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum MemoryCmd {
    /// Core and archival entries, with the prompt window marked
    Show {
        #[arg(long)]
        agent: Option<String>,
    },
    /// Exactly the memory block of prompt part [2]
    Context {
        #[arg(long)]
        agent: Option<String>,
    },
    /// Append one entry (stored as one sanitised line)
    Add {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long, value_enum)]
        scope: ScopeArg,
        text: String,
    },
    /// Recall as the agent's recall_memory does (an install: the runtime's engine; a bare root:
    /// the mode in Settings), or in the mode given. runtime: the runtime's answer with each
    /// result's routes; keyword: archival entries containing QUERY; semantic/hybrid: the
    /// console's own search, entries closest in meaning
    Recall {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long, value_enum)]
        mode: Option<ModeArg>,
        /// Most entries (semantic and hybrid; default: Settings)
        #[arg(long, value_name = "K")]
        limit: Option<u32>,
        #[arg(value_name = "QUERY")]
        keyword: String,
    },
    /// Change one entry's text (sanitised like a write; its time kept unless --restamp)
    Edit {
        #[arg(long)]
        agent: Option<String>,
        /// The entry's content as you saw it: refused with `conflict` when it changed since
        #[arg(long, value_name = "OLD")]
        expect: Option<String>,
        /// Give the entry the current time
        #[arg(long)]
        restamp: bool,
        #[arg(value_name = "ID")]
        id: String,
        #[arg(value_name = "TEXT")]
        text: String,
    },
    /// Delete entries, as one change (undo brings them back)
    Delete {
        #[arg(long)]
        agent: Option<String>,
        /// Refuse unless exactly N ids are given (a guard for scripts)
        #[arg(long, value_name = "N")]
        expect_count: Option<usize>,
        #[arg(value_name = "ID", required = true)]
        ids: Vec<String>,
    },
    /// Forget for good: every copy of entries' texts (or of --text) the console can reach —
    /// memory, its history and journal, its indexes, the runtime's rows, SQLite free pages,
    /// archives it wrote — erased, with a receipt; what it cannot reach (git history, archives
    /// handed over, sessions the running runtime holds) listed. Cannot be undone.
    Forget {
        #[arg(long, conflicts_with = "all_agents")]
        agent: Option<String>,
        /// The text across every agent and the global memory
        #[arg(long, requires = "text")]
        all_agents: bool,
        /// A literal text (instead of entry ids)
        #[arg(long, conflicts_with = "ids")]
        text: Option<String>,
        /// Replace the text in the entries by [forgotten] instead of deleting them
        #[arg(long)]
        mask: bool,
        /// List every copy by place; change nothing
        #[arg(long)]
        dry_run: bool,
        #[arg(value_name = "ID", required_unless_present = "text")]
        ids: Vec<String>,
    },
    /// Move entries to core or archival (time kept, placed in time order), as one change
    Move {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long, value_enum)]
        to: ScopeArg,
        #[arg(value_name = "ID", required = true)]
        ids: Vec<String>,
    },
    /// The console's changes, newest first: id, time, operation, entries before and after
    History {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
    },
    /// Take back a change (default: the last one not yet undone)
    Undo {
        #[arg(long)]
        agent: Option<String>,
        #[arg(value_name = "CHANGE_ID")]
        change_id: Option<String>,
    },
    /// Take back the last undo
    Redo {
        #[arg(long)]
        agent: Option<String>,
    },
    /// What is risky or stale in the entries (secrets, personal data, duplicates, stale
    /// time-relative entries, instructions to the model) and the prompt budget, each finding
    /// with its fix
    Health {
        #[arg(long)]
        agent: Option<String>,
        /// Some of secrets,pii,duplicates,stale,budget,poisoning (default: all)
        #[arg(long, value_delimiter = ',')]
        check: Vec<String>,
    },
    /// Superseded facts: pairs where a newer entry states a different value for the same
    /// thing as an older one (a move, a new phone number, a changed preference), best first
    Superseded {
        #[arg(long, global = true)]
        agent: Option<String>,
        #[command(subcommand)]
        action: Option<SupersededCmd>,
    },
    /// The memory as it stood at a moment (yyyy-MM-dd[ HH:mm[:ss]]; a day alone: its end)
    Asof {
        #[arg(long)]
        agent: Option<String>,
        #[arg(value_name = "TIME")]
        at: String,
    },
    /// Where an entry came from: the save_memory call or conversation turn that wrote it, or a
    /// console change (ids as `memory show --json` lists them)
    Origin {
        #[arg(long)]
        agent: Option<String>,
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Read receipts: for each entry, the prompts whose memory block held it (one prompt per
    /// model call), the recall_memory calls that returned it, and when it was last read
    Reads {
        #[arg(long)]
        agent: Option<String>,
        /// Only these entries (ids as `memory show --json` lists them, or an earlier id)
        #[arg(value_name = "ID")]
        ids: Vec<String>,
        /// Print CSV (every entry) instead of text
        #[arg(long, conflicts_with = "ids")]
        csv: bool,
        /// Entries not read within this many days are marked unread
        #[arg(long, default_value_t = 90)]
        unread_days: u32,
    },
    /// Entries added, removed and changed between two moments
    Diff {
        #[arg(long)]
        agent: Option<String>,
        #[arg(value_name = "FROM")]
        from: String,
        #[arg(value_name = "TO")]
        to: String,
    },
    /// Entries per day by section, and how far back the prompt window reaches
    Stats {
        #[arg(long)]
        agent: Option<String>,
    },
    /// A summary of the archival entries outside the prompt window (counts, ranges, the newest
    /// reply of repeated footprints); --llm asks the summariser of the settings instead;
    /// --apply appends it, --remove-originals also removes them
    Summarize {
        #[arg(long)]
        agent: Option<String>,
        /// Ask the OpenAI-compatible endpoint of Settings → Summaries (default: the agent's
        /// provider)
        #[arg(long)]
        llm: bool,
        #[arg(long)]
        apply: bool,
        #[arg(long, requires = "apply")]
        remove_originals: bool,
    },
    /// Entries added or changed since the last review; --mark marks every entry reviewed
    Review {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long)]
        mark: bool,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum AgentCmd {
    /// Show one agent: front matter, skills, bootstrap files
    Show { name: String },
    /// Create an agent from the runtime's own scaffold (--from: clone an agent); one the
    /// runtime would not load is refused with its reason unless --draft
    Create {
        name: String,
        #[arg(long, value_name = "T")]
        description: Option<String>,
        /// The model (required for an agent the runtime loads)
        #[arg(long, value_name = "M")]
        model: Option<String>,
        /// A provider of the runtime's registry (default: its first name, as the runtime picks)
        #[arg(long, value_name = "P")]
        provider: Option<String>,
        /// Write it even if the runtime would not load it yet
        #[arg(long)]
        draft: bool,
        /// Copy this agent's front matter and body
        #[arg(long, value_name = "AGENT")]
        from: Option<String>,
        /// With --from: copy its MEMORY.md too
        #[arg(long)]
        with_memory: bool,
        /// The AGENT.md body (below the front matter)
        #[arg(long, value_name = "T")]
        body: Option<String>,
        /// Create it although an archived agent has this name
        #[arg(long)]
        reuse_archived_name: bool,
    },
    /// Set one front matter key (dotted: provider.model) to a YAML value; `null` removes it.
    /// Comments, unknown keys and their order are kept
    Set {
        name: String,
        key: String,
        value: String,
    },
    /// List the agent's skills, attach (--add) or detach (--remove) skills of the root
    Skills {
        name: String,
        #[arg(long = "add", value_name = "S")]
        add: Vec<String>,
        #[arg(long = "remove", value_name = "S")]
        remove: Vec<String>,
    },
    /// Move the agent to archive/ (sessions and database memory stay)
    Archive { name: String },
    /// Move an archived agent back (ARCHIVED_NAME as `oryx agents --archived` lists it)
    Restore {
        archived_name: String,
        #[arg(long = "as", value_name = "NAME")]
        as_name: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum FileCmd {
    /// Print a file of the root
    Show { file: String },
    /// Replace a file of the root with --text or the contents of --from
    Edit {
        file: String,
        #[arg(long, value_name = "T", conflicts_with = "from")]
        text: Option<String>,
        #[arg(long, value_name = "PATH")]
        from: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ModeArg {
    /// What the agent gets: the runtime's engine as its install configures it
    Runtime,
    Keyword,
    Semantic,
    Hybrid,
}

#[derive(Subcommand, Debug)]
pub(crate) enum EpisodicCmd {
    /// Messages of past sessions closest in meaning to QUERY, best first
    Search {
        #[arg(long)]
        agent: String,
        /// Most messages (default: the recall limit in Settings)
        #[arg(long, value_name = "K")]
        limit: Option<u32>,
        #[arg(value_name = "QUERY")]
        query: String,
    },
}

/// An agent's recall checks.
#[derive(Subcommand, Debug)]
pub(crate) enum ChecksCmd {
    /// Keep QUESTION with the archival entries that must answer it (run at once)
    Add {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long)]
        question: String,
        /// Entry ids (as `memory show` gives them)
        #[arg(long, num_args = 1.., required = true)]
        expect: Vec<String>,
    },
    /// The checks and their last outcome (those whose answer may have moved run first)
    List {
        #[arg(long)]
        agent: Option<String>,
    },
    /// Run every check now; exit status 1 when one fails
    Run {
        #[arg(long)]
        agent: Option<String>,
    },
    /// Stop keeping a check
    Remove {
        #[arg(long)]
        agent: Option<String>,
        id: String,
    },
    /// The runtime's recall weights and top-k that answer the most checks, and each check before
    /// and after; `--apply` writes them into config/application.yml (one change; `oryx runtime
    /// undo` takes it back)
    Propose {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long)]
        apply: bool,
    },
}

/// The console's vector index of the entries (semantic recall).
#[derive(Subcommand, Debug)]
pub(crate) enum IndexCmd {
    /// The model, the index of every owner, the build in progress
    Status,
    /// Embed what is not indexed yet (every owner, or one agent), with progress; Ctrl-C stops
    /// after the current batch and keeps what is done
    Build {
        #[arg(long)]
        agent: Option<String>,
    },
    /// Drop every vector of this root (they are rebuilt on demand)
    Clear,
    /// Do to the runtime's own index (memory_vectors) what its next start does: drop rows of
    /// another model and of vanished entries, embed the missing ones; Ctrl-C stops after the
    /// current batch
    FillRuntime {
        /// Say what it would drop and embed, change nothing
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum RuntimeCmd {
    /// Change one value of the runtime's config/application.yml in place: memory.backend,
    /// memory.recall.top-k, memory.recall.weight.<semantic|keyword|recency>,
    /// embedding.provider or embedding.model
    Set { key: String, value: String },
    /// Put back config/application.yml as it was before the last `runtime set` or
    /// `runtime use-local-embeddings` (and the providers row that one wrote)
    Undo,
    /// Make the console's offline embeddings (`oryx serve`'s POST /v1/embeddings) the runtime's
    /// embedding provider: a providers row `oryx-local` and embedding.provider/model in
    /// config/application.yml, applied at the runtime's next start
    UseLocalEmbeddings {
        /// The console's address as the runtime reaches it
        #[arg(long, default_value = oryx_api::local_embeddings::DEFAULT_URL)]
        url: String,
        /// The `--token` of `oryx serve`, written as the provider's API key (default: the row's
        /// key, else a placeholder a server without a token accepts)
        #[arg(long, env = "ORYX_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Only show what would change
        #[arg(long)]
        dry_run: bool,
    },
}
