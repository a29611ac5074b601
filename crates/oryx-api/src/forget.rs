//! Forget for good: the dry run that lists every copy of a text by place, the forget itself (in
//! the background, one at a time per console, with progress and cancel) and its receipts.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::forget::receipt::{Receipt, Receipts, State};
use oryx_core::forget::run::{self, Ask, Plan, Reach, Step};
use oryx_core::forget::{Copies, Left, Place};
use oryx_core::names::Owner;

use crate::console::Console;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::events::{ChangeEvent, ChangeKind};
use crate::lock::lock;
use crate::services::Services;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ForgetArgs {
    /// The owner (absent or empty: the global memory); ignored with `all_agents`.
    #[serde(default)]
    pub agent: Option<String>,
    /// A text across every agent and the global memory.
    #[serde(default)]
    pub all_agents: bool,
    /// Entries of the owner, by console id (their texts are forgotten everywhere).
    #[serde(default)]
    pub ids: Vec<String>,
    /// A literal text (instead of `ids`).
    #[serde(default)]
    pub text: Option<String>,
    /// Replace the text by `[forgotten]` in the entries instead of deleting them.
    #[serde(default)]
    pub mask: bool,
    /// Only list the copies; change nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// Copies at one path of one place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct CopiesDto {
    pub place: String,
    pub path: String,
    pub count: u32,
    pub detail: Option<String>,
    /// Erased only: records the forget's own delete wrote there and erased too (a delete's
    /// history and journal records hold the text), not counted in `count`.
    pub own: u32,
}

/// Copies left, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct LeftDto {
    pub place: String,
    pub path: String,
    pub count: u32,
    /// In English, with its details.
    pub reason: String,
    /// Why, as a code the UI words (`git`, `handed_over`, `session_held`, `cancelled`, …).
    pub why: String,
    /// The detail `why` names: commit ids, an error, a session's status, `table.column`.
    pub arg: Option<String>,
}

/// What was asked, without the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ForgetAskDto {
    /// `entries` or `text`.
    pub kind: String,
    /// The owner's agent; absent: the global memory (or every owner with `all_agents`).
    pub agent: Option<String>,
    pub all_agents: bool,
    pub entries: u32,
}

fn ask_dto(a: &oryx_core::forget::run::AskSummary) -> ForgetAskDto {
    ForgetAskDto {
        kind: a.kind.clone(),
        agent: a.agent.clone(),
        all_agents: a.all_agents,
        entries: n(a.entries),
    }
}

/// A forget's dry run, its progress, or its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ForgetDto {
    pub dry_run: bool,
    /// What was asked, for people (English; `ask` says it in parts).
    pub scope: String,
    pub ask: ForgetAskDto,
    /// Texts forgotten (a text is never sent back).
    pub texts: u32,
    pub found: Vec<CopiesDto>,
    pub erased: Vec<CopiesDto>,
    pub left: Vec<LeftDto>,
    /// The runtime's records it changes (`table.column`), for the confirmation.
    pub runtime_records: Vec<String>,
    /// The runtime runs: the sessions it may write again are left.
    pub runtime_running: bool,
    /// `running`, `done`, `cancelled`, `failed`; absent for a dry run.
    pub state: Option<String>,
    /// Places done of all, while it runs.
    pub step: Option<ForgetStepDto>,
    pub receipt: Option<String>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ForgetStepDto {
    pub done: u32,
    pub of: u32,
    pub place: String,
}

/// A receipt as History lists it: hashes, counts and places, never the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ForgetReceiptDto {
    pub id: String,
    /// Local time, `yyyy-MM-dd HH:mm:ss`.
    pub at: String,
    pub ended: Option<String>,
    /// `done`, `cancelled`, `running`, or `interrupted` (its console stopped midway: forget the
    /// same text again to finish).
    pub state: String,
    pub scope: String,
    /// Absent in receipts written before it was kept.
    pub ask: Option<ForgetAskDto>,
    pub mask: bool,
    pub text_sha256: Vec<String>,
    pub searched: Vec<String>,
    pub found: Vec<CopiesDto>,
    pub erased: Vec<CopiesDto>,
    pub left: Vec<LeftDto>,
}

/// The forget of a console: its state for polling, its cancel flag.
#[derive(Default)]
pub struct ForgetSlot(Mutex<Option<(ForgetDto, Arc<AtomicBool>)>>);

impl ForgetSlot {
    fn update(&self, f: impl FnOnce(&mut ForgetDto)) {
        if let Some((s, _)) = lock(&self.0).as_mut() {
            f(s);
        }
    }

    fn state(&self) -> Option<ForgetDto> {
        lock(&self.0).as_ref().map(|(s, _)| s.clone())
    }
}

fn n(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

fn place_name(p: Place) -> String {
    serde_json::to_value(p)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn path_text(p: &Path) -> String {
    p.display().to_string()
}

fn copies_dto(c: &Copies) -> CopiesDto {
    CopiesDto {
        place: place_name(c.place),
        path: path_text(&c.path),
        count: n(c.count),
        detail: c.detail.clone(),
        own: n(c.own),
    }
}

fn left_dto(l: &Left) -> LeftDto {
    LeftDto {
        place: place_name(l.place),
        path: path_text(&l.path),
        count: n(l.count),
        reason: l.reason.clone(),
        why: serde_json::to_value(l.why)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        arg: l.arg.clone(),
    }
}

fn receipt_state(r: &Receipt) -> &'static str {
    match r.state {
        State::Done => "done",
        State::Cancelled => "cancelled",
        State::Started if r.interrupted() => "interrupted",
        State::Started => "running",
    }
}

fn receipt_dto(r: &Receipt) -> ForgetReceiptDto {
    ForgetReceiptDto {
        id: r.id.clone(),
        at: crate::curation::local_time(r.at),
        ended: r.ended.map(crate::curation::local_time),
        state: receipt_state(r).into(),
        scope: r.scope.clone(),
        ask: r.ask.as_ref().map(ask_dto),
        mask: r.mask,
        text_sha256: r.text_sha256.clone(),
        searched: r.searched.clone(),
        found: r.found.iter().map(copies_dto).collect(),
        erased: r.erased.iter().map(copies_dto).collect(),
        left: r.left.iter().map(left_dto).collect(),
    }
}

fn plan_dto(plan: &Plan, dry_run: bool, runtime_running: bool) -> ForgetDto {
    ForgetDto {
        dry_run,
        scope: plan.scope.clone(),
        ask: ask_dto(&plan.ask),
        texts: n(plan.needles.texts().len()),
        found: plan.found.iter().map(copies_dto).collect(),
        erased: Vec::new(),
        left: plan.outside.iter().map(left_dto).collect(),
        runtime_records: plan.runtime_records(),
        runtime_running,
        state: None,
        step: None,
        receipt: None,
        error: None,
    }
}

fn ended_dto(plan: &Plan, r: &Receipt, runtime_running: bool) -> ForgetDto {
    ForgetDto {
        erased: r.erased.iter().map(copies_dto).collect(),
        left: r.left.iter().map(left_dto).collect(),
        state: Some(receipt_state(r).into()),
        receipt: Some(r.id.clone()),
        ..plan_dto(plan, false, runtime_running)
    }
}

fn reach<'a>(
    rt: &'a Services,
    index_dir: &'a Path,
    transfer_dir: Option<&'a Path>,
    runtime_running: bool,
) -> Reach<'a> {
    Reach {
        effective: &rt.effective,
        memory: &rt.memory,
        index_dir,
        transfer_dir,
        runtime_running,
    }
}

/// A forget ready to run: the console's services and folders it reaches, and its plan.
struct Prepared {
    rt: Arc<Services>,
    index_dir: PathBuf,
    transfer: Option<PathBuf>,
    runtime_running: bool,
    plan: Plan,
}

impl Prepared {
    fn reach(&self) -> Reach<'_> {
        reach(
            &self.rt,
            &self.index_dir,
            self.transfer.as_deref(),
            self.runtime_running,
        )
    }

    fn run(
        &self,
        mask: bool,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(Step),
    ) -> ApiResult<ForgetDto> {
        let receipts = Receipts::new(&self.index_dir);
        let receipt = run::run(&self.reach(), &self.plan, mask, &receipts, cancel, progress)?;
        Ok(ended_dto(&self.plan, &receipt, self.runtime_running))
    }
}

impl Console {
    /// The plan (the dry run's search) of what `a` asks, with what running it needs.
    fn forget_prepare(&self, a: &ForgetArgs) -> ApiResult<Prepared> {
        let rt = self.services();
        let runtime_running = rt
            .effective
            .install_dir
            .as_deref()
            .and_then(oryx_core::runtime::process::running)
            .is_some();
        let index_dir = self.index_dir();
        let transfer = self.forget_transfer_dir();
        let ask = self.forget_ask(&rt, a)?;
        let plan = run::plan(
            &reach(&rt, &index_dir, transfer.as_deref(), runtime_running),
            &ask,
        )?;
        Ok(Prepared {
            rt,
            index_dir,
            transfer,
            runtime_running,
            plan,
        })
    }

    fn forget_ask(&self, rt: &Services, a: &ForgetArgs) -> ApiResult<Ask> {
        match (&a.text, a.ids.is_empty()) {
            (Some(_), false) => Err(ApiError::invalid("give entry ids or a text, not both")),
            (None, true) => Err(ApiError::invalid(
                "give the entry ids or the text to forget",
            )),
            (Some(text), true) => {
                let owners = if a.all_agents {
                    let mut all: Vec<Owner> = oryx_core::agents::list(rt.root())?
                        .into_iter()
                        .map(|a| Owner::Agent(a.name))
                        .collect();
                    all.push(Owner::Global);
                    all
                } else {
                    vec![rt.owner(a.agent.as_deref().filter(|s| !s.is_empty()))?]
                };
                Ok(Ask::Text {
                    text: text.clone(),
                    owners,
                })
            }
            (None, false) => {
                if a.all_agents {
                    return Err(ApiError::invalid(
                        "entry ids belong to one owner: name it, without all_agents",
                    ));
                }
                Ok(Ask::Entries {
                    owner: rt.owner(a.agent.as_deref().filter(|s| !s.is_empty()))?,
                    ids: a.ids.clone(),
                })
            }
        }
    }

    fn forget_transfer_dir(&self) -> Option<PathBuf> {
        let dir = self.index_dir().with_file_name("transfers");
        dir.is_dir().then_some(dir)
    }

    /// Forgets now, in this thread (the CLI): the dry run, or the forget and its receipt.
    pub fn forget_now(
        &self,
        a: &ForgetArgs,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(Step),
    ) -> ApiResult<ForgetDto> {
        let p = self.forget_prepare(a)?;
        if a.dry_run {
            return Ok(plan_dto(&p.plan, true, p.runtime_running));
        }
        p.run(a.mask, cancel, progress)
    }

    /// The dry run (answered at once), or the forget started in the background: poll
    /// `forget_state`. Refused while another forget runs.
    pub fn forget(&self, a: &ForgetArgs) -> ApiResult<ForgetDto> {
        if a.dry_run {
            return self.forget_now(a, &AtomicBool::new(false), &mut |_| {});
        }
        // The plan is made before the job starts, so a bad id is an answer, not a failed job.
        let p = self.forget_prepare(a)?;
        let mut start = plan_dto(&p.plan, false, p.runtime_running);
        start.state = Some("running".into());
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut slot = lock(&self.forget_slot().0);
            if slot
                .as_ref()
                .is_some_and(|(s, _)| s.state.as_deref() == Some("running"))
            {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    "a forget is already running: wait for it, or cancel it",
                ));
            }
            *slot = Some((start.clone(), cancel.clone()));
        }
        let slot = self.forget_slot().clone();
        let subscribers = self.events().subscribers.clone();
        let mask = a.mask;
        std::thread::Builder::new()
            .name("oryx-forget".into())
            .spawn(move || {
                let outcome = p.run(mask, &cancel, &mut |s| {
                    slot.update(|d| {
                        d.step = Some(ForgetStepDto {
                            done: n(s.done),
                            of: n(s.of),
                            place: s.place.into(),
                        })
                    })
                });
                slot.update(|d| match outcome {
                    Ok(done) => *d = done,
                    Err(e) => {
                        d.state = Some("failed".into());
                        d.error = Some(e.to_string());
                    }
                });
                // Every window follows: memories of several owners and the runtime's rows changed.
                for kind in [ChangeKind::Memory, ChangeKind::Sessions] {
                    subscribers.publish(ChangeEvent { kind, agent: None });
                }
            })
            .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
        Ok(start)
    }

    /// Asks the running forget to stop before its next place; `false` when none runs.
    pub fn cancel_forget(&self) -> bool {
        match lock(&self.forget_slot().0).as_ref() {
            Some((s, flag)) if s.state.as_deref() == Some("running") => {
                flag.store(true, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }

    /// The running or last forget of this console.
    pub fn forget_state(&self) -> Option<ForgetDto> {
        self.forget_slot().state()
    }

    /// Every forget's receipt, newest first.
    pub fn forget_receipts(&self) -> ApiResult<Vec<ForgetReceiptDto>> {
        Ok(Receipts::new(&self.index_dir())
            .list()?
            .iter()
            .map(receipt_dto)
            .collect())
    }
}
