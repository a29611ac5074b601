//! What each subcommand does: one `Console` method, then its rendering.

use std::process::ExitCode;

use oryx_api::curation::{EditArgs, EntryRef, MoveArgs, SelectionArgs};
use oryx_api::dto::{AppendRequest, RecallModeDto, ScopeDto, SessionQuery, SessionStatusDto};
use oryx_api::{ApiError, ApiResult, Backend, Console, Overrides};

use crate::args::*;
use crate::render;

pub fn run(args: Args) -> ApiResult<ExitCode> {
    if let Command::Demo { path, bare } = &args.command {
        return demo(path, *bare, args.json);
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
        Command::Runtime { cmd } => match cmd {
            None => render::runtime_info(&console.runtime_info()?, json),
            Some(RuntimeCmd::Set { key, value }) => render::runtime_change(
                &console
                    .set_runtime_value(&oryx_api::runtime::SetRuntimeValueArgs { key, value })?,
                json,
            ),
            Some(RuntimeCmd::Undo) => render::runtime_change(&console.undo_runtime_value()?, json),
            Some(RuntimeCmd::UseLocalEmbeddings {
                url,
                token,
                dry_run,
            }) => render::local_embeddings(
                &console.use_local_embeddings(
                    &oryx_api::local_embeddings::UseLocalEmbeddingsArgs {
                        url: Some(url),
                        api_key: token,
                        dry_run,
                    },
                )?,
                json,
            ),
        },
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
            IndexCmd::FillRuntime { dry_run } => {
                let fill = crate::progress::fill_runtime_index(&console, dry_run, json)?;
                render::runtime_fill(&fill, json);
                if fill.cancelled {
                    return Ok(ExitCode::from(130));
                }
                if let Some(e) = fill.error {
                    return Err(ApiError::new(oryx_api::ErrorCode::Internal, e));
                }
            }
        },
        Command::Checks(cmd) => {
            use oryx_api::recall_checks::*;
            let (out, run) = match cmd {
                ChecksCmd::Add {
                    agent,
                    question,
                    expect,
                } => (
                    console.add_recall_check(&AddRecallCheckArgs {
                        agent,
                        question,
                        expect,
                    })?,
                    false,
                ),
                ChecksCmd::List { agent } => (
                    console.recall_checks(&RecallChecksArgs {
                        agent,
                        force: false,
                    })?,
                    false,
                ),
                ChecksCmd::Run { agent } => (
                    console.recall_checks(&RecallChecksArgs { agent, force: true })?,
                    true,
                ),
                ChecksCmd::Remove { agent, id } => (
                    console.remove_recall_check(&RemoveRecallCheckArgs { agent, id })?,
                    false,
                ),
                ChecksCmd::Propose { agent, apply } => {
                    use oryx_api::recall_proposal::*;
                    let p =
                        console.propose_recall_settings(&ProposeRecallSettingsArgs { agent })?;
                    let applied = match (&p.proposed, apply) {
                        (Some(s), true) => {
                            console.set_runtime_values(&s.runtime_values_from(&p.current))?
                        }
                        _ => Vec::new(),
                    };
                    render::recall_proposal(&p, &applied, json);
                    return Ok(ExitCode::SUCCESS);
                }
            };
            render::recall_checks(&out, json);
            if run && out.failed > 0 {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Migrate {
            from,
            to,
            agent,
            all,
            dry_run,
            switch,
        } => {
            if agent.is_none() && !all {
                return Err(ApiError::invalid("choose --agent NAME or --all"));
            }
            let req = oryx_api::migrate::MigrateRequest {
                from: backend_dto(from),
                to: backend_dto(to),
                agent,
                dry_run,
                switch,
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
            if matches!(mode, None | Some(ModeArg::Runtime)) {
                let r = console.agent_recall(agent.as_deref(), &keyword, None)?;
                // A bare root has no runtime: without a mode it recalls as Settings say.
                if !(r.bare_root && mode.is_none()) {
                    render::agent_recall(&r, json);
                    return Ok(());
                }
            }
            let mode = mode.and_then(|m| match m {
                ModeArg::Runtime => None,
                ModeArg::Keyword => Some(RecallModeDto::Keyword),
                ModeArg::Semantic => Some(RecallModeDto::Semantic),
                ModeArg::Hybrid => Some(RecallModeDto::Hybrid),
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
        MemoryCmd::Forget {
            agent,
            all_agents,
            text,
            mask,
            dry_run,
            ids,
        } => {
            let args = oryx_api::forget::ForgetArgs {
                agent,
                all_agents,
                ids,
                text,
                mask,
                dry_run,
            };
            render::forget(&crate::progress::forget(console, &args, json)?, json)
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
        MemoryCmd::Superseded { agent, action } => {
            use oryx_api::superseded::{Keep, ResolveSupersededArgs, UnkeepArgs};
            match action {
                None => render::superseded(&console.superseded(agent.as_deref())?, json),
                Some(SupersededCmd::Resolve { keep, older, newer }) => {
                    let keep = match keep {
                        KeepArg::Newer => Keep::Newer,
                        KeepArg::Older => Keep::Older,
                        KeepArg::Both => Keep::Both,
                    };
                    let r = |id: String| oryx_api::curation::EntryRef { id, expect: None };
                    render::resolved(
                        &console.resolve_superseded(&ResolveSupersededArgs {
                            agent,
                            older: r(older),
                            newer: r(newer),
                            keep,
                        })?,
                        json,
                    )
                }
                Some(SupersededCmd::Unkeep { older, newer }) => render::resolved(
                    &console.superseded_unkeep(&UnkeepArgs {
                        agent,
                        older,
                        newer,
                    })?,
                    json,
                ),
            }
        }
        MemoryCmd::Asof { agent, at } => render::asof(
            &console.memory_asof(&oryx_api::portable::AsOfArgs { agent, at })?,
            json,
        ),
        MemoryCmd::Origin { agent, id } => render::origin(
            &console.entry_provenance(&oryx_api::provenance::ProvenanceArgs { agent, id })?,
            json,
        ),
        MemoryCmd::Reads {
            agent,
            ids,
            csv,
            unread_days,
        } => {
            let args = oryx_api::reads::EntryReadsArgs {
                agent,
                ids: Some(ids),
                unread_days: Some(unread_days),
            };
            let dto = console.entry_reads(&args)?;
            if csv {
                print!("{}", oryx_api::reads::to_csv(&dto));
                return Ok(());
            }
            render::reads(&dto, json)
        }
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
                draft,
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
                draft,
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

fn demo(path: &std::path::Path, bare: bool, json: bool) -> ApiResult<ExitCode> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| ApiError::new(oryx_api::ErrorCode::Io, e.to_string()))?
            .join(path)
    };
    if bare {
        let inspection = oryx_api::settings::create_sample_root(&abs.to_string_lossy())?;
        render::demo(&inspection, None, json);
    } else {
        let inspection = oryx_api::settings::create_sample_install(&abs.to_string_lossy())?;
        let dir = std::path::Path::new(&inspection.path)
            .parent()
            .map(|d| d.display().to_string());
        render::demo(&inspection, dir.as_deref(), json);
    }
    Ok(ExitCode::SUCCESS)
}
