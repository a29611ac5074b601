//! Argument parsing and dispatch. Each subcommand calls one `Console` method.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use oryx_api::curation::{EditArgs, EntryRef, MoveArgs, SelectionArgs};
use oryx_api::dto::{AppendRequest, RecallModeDto, ScopeDto, SessionQuery, SessionStatusDto};
use oryx_api::{ApiError, ApiResult, Backend, Console, Overrides};

use crate::render;

#[derive(Parser, Debug)]
#[command(
    name = "oryx",
    version,
    about = "OryxOS memory console: agents, memory, sessions and prompts from the command line"
)]
pub struct Args {
    /// The .oryxos root (default: settings, then $ORYXOS_ROOT, then ~/.oryxos)
    #[arg(long, global = true, value_name = "PATH")]
    root: Option<PathBuf>,
    /// The runtime's SQLite database (default: <root>/oryxos.db; env ORYXOS_DB)
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Long-term memory backend for this run
    #[arg(long, global = true, value_enum)]
    backend: Option<BackendArg>,
    /// Settings file (default: the OS config dir, or $ORYXOS_CONFIG_DIR/settings.json)
    #[arg(long, global = true, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Base URL of the mem0 service for the mem0 backend (env MEM0_BASE_URL)
    #[arg(long, global = true, value_name = "URL")]
    mem0_url: Option<String>,
    /// Print JSON instead of text
    #[arg(long, global = true)]
    json: bool,
    /// Create the root (and its agents/ folder) when it does not exist or is not a root yet
    #[arg(long, global = true)]
    create_root: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BackendArg {
    Markdown,
    Sqlite,
    Mem0,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ScopeArg {
    Core,
    Archival,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum StatusArg {
    Active,
    Archived,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ToolArg {
    #[value(name = "save_memory")]
    SaveMemory,
    #[value(name = "recall_memory")]
    RecallMemory,
}

#[derive(Subcommand, Debug)]
enum Command {
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
    /// Write a realistic sample root (agents, MEMORY.md files, oryxos.db) into PATH
    Demo { path: PathBuf },
    /// Show the settings in effect
    Settings,
    /// The vector index semantic recall uses
    #[command(subcommand)]
    Index(IndexCmd),
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
enum MemoryCmd {
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
    /// Recall as the recall_memory tool does (the mode in Settings), or in the mode given.
    /// keyword: archival entries containing QUERY; semantic/hybrid: entries closest in meaning
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
    /// time-relative entries) and the prompt budget, each finding with its fix
    Health {
        #[arg(long)]
        agent: Option<String>,
        /// Some of secrets,pii,duplicates,stale,budget (default: all)
        #[arg(long, value_delimiter = ',')]
        check: Vec<String>,
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
enum AgentCmd {
    /// Show one agent: front matter, skills, bootstrap files
    Show { name: String },
    /// Create an agent whose AGENT.md the runtime loads (--from: clone an agent)
    Create {
        name: String,
        #[arg(long, value_name = "T")]
        description: Option<String>,
        #[arg(long, value_name = "M")]
        model: Option<String>,
        #[arg(long, value_name = "P")]
        provider: Option<String>,
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
enum FileCmd {
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
enum ModeArg {
    Keyword,
    Semantic,
    Hybrid,
}

#[derive(Subcommand, Debug)]
enum EpisodicCmd {
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

/// The console's vector index of the entries (semantic recall).
#[derive(Subcommand, Debug)]
enum IndexCmd {
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
}

pub fn run(args: Args) -> ApiResult<ExitCode> {
    if let Command::Demo { path } = &args.command {
        return demo(path, args.json);
    }
    let overrides = Overrides {
        root: args.root.clone(),
        db_path: args.db.clone(),
        backend: args.backend.map(|b| match b {
            BackendArg::Markdown => Backend::Markdown,
            BackendArg::Sqlite => Backend::Sqlite,
            BackendArg::Mem0 => Backend::Mem0,
        }),
        mem0_url: args.mem0_url.clone(),
    };
    let console = Console::open(args.config.clone(), overrides)?;
    if args.create_root {
        console.create_root()?;
    }
    let json = args.json;
    match args.command {
        Command::Agents { archived: false } => render::agents(&console.list_agents()?, json),
        Command::Agents { archived: true } => render::archived(&console.list_archived()?, json),
        Command::Agent { cmd, name } => agent(&console, cmd, name, json)?,
        Command::File(f) => file(&console, f, json)?,
        Command::Memory(m) => memory(&console, m, json)?,
        Command::Sessions {
            agent,
            status,
            limit,
            offset,
            search,
        } => {
            let q = SessionQuery {
                search,
                agent,
                status: status.map(|s| match s {
                    StatusArg::Active => SessionStatusDto::Active,
                    StatusArg::Archived => SessionStatusDto::Archived,
                }),
                limit: Some(limit),
                offset: Some(offset),
                ..SessionQuery::default()
            };
            render::sessions(&console.list_sessions(&q)?, json)
        }
        Command::Session { id } => {
            let s = console.get_session(&id)?;
            let calls = console.tool_invocations(Some(&id), Some(500), None)?;
            render::session(&s, &calls, json);
            // What could be read is shown; the unreadable rest is still a failure for scripts.
            if let Some(e) = &s.summary.error {
                return Err(ApiError::new(
                    oryx_api::ErrorCode::Corrupt,
                    format!("session {id}: {e}"),
                ));
            }
        }
        Command::Prompt {
            agent,
            session,
            query,
            asof,
            message,
        } => render::prompt(
            &console.prompt_at(&oryx_api::ops::PromptArgs {
                agent,
                session_id: session,
                query,
                asof,
                message_index: message.map(|m| m.saturating_sub(1)),
            })?,
            json,
        ),
        Command::Episodic(EpisodicCmd::Search {
            agent,
            limit,
            query,
        }) => render::episodic(&console.episodic_search(&agent, &query, limit)?, json),
        Command::Tool {
            name,
            input,
            agent,
            session,
        } => {
            let tool = match name {
                ToolArg::SaveMemory => "save_memory",
                ToolArg::RecallMemory => "recall_memory",
            };
            let r = console.run_tool(agent.as_deref(), session.as_deref(), tool, &input)?;
            render::tool(&r, json);
            if let Some(w) = &r.warning {
                eprintln!("warning: {w}");
            }
            // A bad call (unknown scope, bad JSON) is the caller's to fix, even when the
            // runtime records it as an answered call.
            return Ok(match (r.bad_call, r.success) {
                (true, _) => ExitCode::from(2),
                (false, true) => ExitCode::SUCCESS,
                (false, false) => ExitCode::from(1),
            });
        }
        Command::Footprint { agent, user, reply } => render::footprint(
            &console.record_footprint(Some(&agent), &user, &reply)?,
            json,
        ),
        Command::Settings => render::settings(&console.get_settings()?, json),
        Command::Index(cmd) => match cmd {
            IndexCmd::Status => render::index_status(&console.index_status()?, json),
            IndexCmd::Build { agent } => {
                let job = crate::progress::build_index(&console, agent.as_deref(), json)?;
                render::index_job(&job, json);
                if job.cancelled {
                    return Ok(ExitCode::from(130));
                }
                if let Some(e) = job.error {
                    return Err(ApiError::new(oryx_api::ErrorCode::Internal, e));
                }
            }
            IndexCmd::Clear => render::index_status(&console.clear_index()?, json),
        },
        Command::Migrate {
            from,
            to,
            agent,
            all,
            dry_run,
        } => {
            if agent.is_none() && !all {
                return Err(ApiError::invalid("choose --agent NAME or --all"));
            }
            let req = oryx_api::migrate::MigrateRequest {
                from: backend_dto(from),
                to: backend_dto(to),
                agent,
                dry_run,
            };
            let report = crate::progress::run_migration(&console, &req, json)?;
            render::migration(&report, json);
            if report.total.failed > 0 || report.cancelled {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Export {
            agents,
            all,
            sessions,
            with_history,
            out,
        } => {
            let args = oryx_api::portable::ExportArgs {
                agents: &agents,
                all,
                sessions,
                include_history: with_history,
                out: &out,
            };
            let r = crate::progress::with_units(json, |cancel, progress| {
                console.export_archive(&args, cancel, progress)
            })?;
            render::export(&r, json);
        }
        Command::Import {
            archive,
            dry_run,
            into_backend,
            agent_map,
            overwrite_files,
            from,
            agent,
        } => {
            if let Some(from) = from {
                oryx_api::files::open_input(&archive, MAX_FOREIGN_INPUT)?;
                let args = oryx_api::portable::ForeignImportArgs {
                    file: &archive,
                    from: &from,
                    agent: agent.as_deref(),
                    dry_run,
                };
                let r = crate::progress::with_units(json, |cancel, _| {
                    console.import_foreign(&args, cancel)
                })?;
                render::import_foreign(&r, json);
                if r.cancelled || r.owner.error.is_some() {
                    return Ok(ExitCode::from(1));
                }
                return Ok(ExitCode::SUCCESS);
            }
            let mut map = std::collections::HashMap::new();
            for m in &agent_map {
                let (old, new) = m.split_once('=').ok_or_else(|| {
                    ApiError::invalid(format!("--agent-map takes OLD=NEW, got {m:?}"))
                })?;
                map.insert(old.trim().to_string(), new.trim().to_string());
            }
            let args = oryx_api::portable::ImportArgs {
                archive: &archive,
                dry_run,
                into_backend: into_backend.map(backend_dto),
                agent_map: map,
                overwrite_files,
            };
            let r = crate::progress::with_units(json, |cancel, progress| {
                console.import_archive(&args, cancel, progress)
            })?;
            render::import(&r, json);
            if r.cancelled || r.owners.iter().any(|o| o.error.is_some()) {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Serve {
            bind,
            token,
            ui_dir,
            allow_hosts,
            request_timeout,
            max_connections,
            header_timeout,
            body_timeout,
            shutdown_grace,
            max_workers,
            tls_cert,
            tls_key,
        } => {
            oryx_server::serve(
                console,
                oryx_server::ServeOptions {
                    bind,
                    token,
                    ui_dir,
                    allow_hosts,
                    tls: tls_cert
                        .zip(tls_key)
                        .map(|(cert, key)| oryx_server::TlsFiles { cert, key }),
                    limits: oryx_server::Limits {
                        request: request_timeout,
                        header: header_timeout,
                        body: body_timeout,
                        shutdown_grace,
                        max_connections: max_connections as usize,
                        max_blocking: max_workers as usize,
                    },
                },
            )?;
        }
        Command::Demo { .. } => unreachable!("handled before opening the console"),
    }
    Ok(ExitCode::SUCCESS)
}

fn backend_dto(b: BackendArg) -> oryx_api::dto::BackendDto {
    use oryx_api::dto::BackendDto;
    match b {
        BackendArg::Markdown => BackendDto::Markdown,
        BackendArg::Sqlite => BackendDto::Sqlite,
        BackendArg::Mem0 => BackendDto::Mem0,
    }
}

fn memory(console: &Console, cmd: MemoryCmd, json: bool) -> ApiResult<()> {
    match cmd {
        MemoryCmd::Show { agent } => render::memory(&console.memory_view(agent.as_deref())?, json),
        MemoryCmd::Context { agent } => {
            render::context(&console.memory_context(agent.as_deref())?, json)
        }
        MemoryCmd::Add { agent, scope, text } => {
            let req = AppendRequest {
                agent,
                scope: match scope {
                    ScopeArg::Core => ScopeDto::Core,
                    ScopeArg::Archival => ScopeDto::Archival,
                },
                content: text,
            };
            render::appended(&console.append_memory(&req)?, json)
        }
        MemoryCmd::Recall {
            agent,
            mode,
            limit,
            keyword,
        } => {
            let mode = mode.map(|m| match m {
                ModeArg::Keyword => RecallModeDto::Keyword,
                ModeArg::Semantic => RecallModeDto::Semantic,
                ModeArg::Hybrid => RecallModeDto::Hybrid,
            });
            render::recall(
                &console.recall_memory(agent.as_deref(), &keyword, mode, limit)?,
                json,
            )
        }
        MemoryCmd::Edit {
            agent,
            expect,
            restamp,
            id,
            text,
        } => {
            let args = EditArgs {
                agent,
                id,
                expect,
                content: text,
                restamp,
            };
            render::change(&console.edit_entry(&args)?, json)
        }
        MemoryCmd::Delete {
            agent,
            expect_count,
            ids,
        } => {
            if let Some(n) = expect_count.filter(|n| *n != ids.len()) {
                return Err(ApiError::invalid(format!(
                    "--expect-count {n} but {} ids were given; nothing was deleted",
                    ids.len()
                )));
            }
            let args = SelectionArgs {
                agent,
                entries: refs(ids),
            };
            render::change(&console.delete_entries(&args)?, json)
        }
        MemoryCmd::Move { agent, to, ids } => {
            let args = MoveArgs {
                agent,
                entries: refs(ids),
                to: match to {
                    ScopeArg::Core => ScopeDto::Core,
                    ScopeArg::Archival => ScopeDto::Archival,
                },
            };
            render::change(&console.move_entries(&args)?, json)
        }
        MemoryCmd::History { agent, limit } => {
            render::history(&console.memory_history(agent.as_deref(), limit)?, json)
        }
        MemoryCmd::Undo { agent, change_id } => render::change(
            &console.undo_change(agent.as_deref(), change_id.as_deref())?,
            json,
        ),
        MemoryCmd::Redo { agent } => render::change(&console.redo_change(agent.as_deref())?, json),
        MemoryCmd::Health { agent, check } => {
            let args = oryx_api::health::HealthArgs {
                agent,
                checks: (!check.is_empty()).then_some(check),
                stale_after_days: None,
            };
            render::health(&console.memory_health(&args)?, json)
        }
        MemoryCmd::Asof { agent, at } => render::asof(
            &console.memory_asof(&oryx_api::portable::AsOfArgs { agent, at })?,
            json,
        ),
        MemoryCmd::Origin { agent, id } => render::origin(
            &console.entry_provenance(&oryx_api::provenance::ProvenanceArgs { agent, id })?,
            json,
        ),
        MemoryCmd::Diff { agent, from, to } => render::diff(
            &console.memory_diff(&oryx_api::portable::MemoryDiffArgs { agent, from, to })?,
            json,
        ),
        MemoryCmd::Stats { agent } => render::stats(&console.memory_stats(agent.as_deref())?, json),
        MemoryCmd::Summarize {
            agent,
            llm,
            apply,
            remove_originals,
        } => {
            let ask = oryx_api::curation::ProposeSummaryArgs {
                agent: agent.clone(),
                llm,
            };
            let Some(p) = console.propose_summary(&ask)? else {
                if json {
                    println!("null");
                } else {
                    println!(
                        "fewer than two entries outside the window are not summarised yet: \
                         nothing to summarise"
                    );
                }
                return Ok(());
            };
            if !apply {
                render::summary(&p, json);
                return Ok(());
            }
            let args = oryx_api::curation::ApplySummaryArgs {
                agent,
                content: p.content,
                covered: p.covered,
                remove_originals,
            };
            render::change(&console.apply_summary(&args)?, json)
        }
        MemoryCmd::Review { agent, mark } => {
            let r = match mark {
                true => console.mark_reviewed(agent.as_deref())?,
                false => console.review_status(agent.as_deref())?,
            };
            render::review(&r, json)
        }
    }
    Ok(())
}

fn agent(
    console: &Console,
    cmd: Option<AgentCmd>,
    name: Option<String>,
    json: bool,
) -> ApiResult<()> {
    use oryx_api::agent_admin::*;
    match (cmd, name) {
        (None, Some(name)) | (Some(AgentCmd::Show { name }), _) => {
            render::agent(&console.get_agent(&name)?, json)
        }
        (None, None) => return Err(ApiError::invalid(
            "name an agent (oryx agent NAME) or a command: create, set, skills, archive, restore",
        )),
        (
            Some(AgentCmd::Create {
                name,
                description,
                model,
                provider,
                from,
                with_memory,
                body,
                reuse_archived_name,
            }),
            _,
        ) => {
            let args = CreateAgentArgs {
                name,
                description,
                model,
                provider,
                from,
                with_memory,
                body,
                reuse_archived_name,
                ..CreateAgentArgs::default()
            };
            render::agent(&console.create_agent(&args)?, json)
        }
        (Some(AgentCmd::Set { name, key, value }), _) => {
            let args = SetKeyArgs {
                name,
                key,
                value,
                version: None,
            };
            render::agent_file(&console.set_agent_key(&args)?, json)
        }
        (Some(AgentCmd::Skills { name, add, remove }), _) => {
            let a = match add.is_empty() && remove.is_empty() {
                true => console.get_agent(&name)?,
                false => console.set_agent_skills(&SkillsArgs { name, add, remove })?,
            };
            render::skills(&a, json)
        }
        (Some(AgentCmd::Archive { name }), _) => {
            render::archived_one(&console.archive_agent(&name)?, json)
        }
        (
            Some(AgentCmd::Restore {
                archived_name,
                as_name,
            }),
            _,
        ) => {
            let args = RestoreAgentArgs {
                archived_name,
                as_name,
            };
            render::agent(&console.restore_agent(&args)?, json)
        }
    }
    Ok(())
}

fn file(console: &Console, cmd: FileCmd, json: bool) -> ApiResult<()> {
    match cmd {
        FileCmd::Show { file } => render::file(&console.bootstrap_file(&file)?, json),
        FileCmd::Edit { file, text, from } => {
            let text = match (text, from) {
                (Some(t), _) => t,
                (None, Some(p)) => {
                    oryx_api::files::read_input(&p, oryx_api::files::MAX_FILE_BYTES)?
                }
                (None, None) => return Err(ApiError::invalid("give --text T or --from PATH")),
            };
            let args = oryx_api::agent_admin::SaveFileArgs {
                name: file,
                text,
                version: None,
            };
            render::file(&console.save_bootstrap_file(&args)?, json)
        }
    }
    Ok(())
}

/// Most bytes `import --from` takes: a regular file larger than this is refused before it is read.
const MAX_FOREIGN_INPUT: u64 = 256 << 20;

/// Ids from the command line name entries as they are now (no expected content).
fn refs(ids: Vec<String>) -> Vec<EntryRef> {
    ids.into_iter()
        .map(|id| EntryRef { id, expect: None })
        .collect()
}

fn demo(path: &std::path::Path, json: bool) -> ApiResult<ExitCode> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| ApiError::new(oryx_api::ErrorCode::Io, e.to_string()))?
            .join(path)
    };
    let inspection = oryx_api::settings::create_sample_root(&abs.to_string_lossy())?;
    render::demo(&inspection, json);
    Ok(ExitCode::SUCCESS)
}
