//! Superseded facts: pairs of an owner's entries where the newer states a different value for
//! the same thing, and their resolution — keep the newer (delete the older), keep the older
//! (delete the newer), each one change of the curation history that undo takes back; or keep
//! both, remembered as a dismissal that `superseded_unkeep` takes back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use oryx_core::embed::{content_hash, EmbedderSlot, Vector};
use oryx_core::memory::curation::{Action, Target};
use oryx_core::memory::review::{entry_key, Reviews};
use oryx_core::memory::superseded::{self, pair_key, Thresholds};
use oryx_core::memory::{Entry, Scope};
use oryx_core::names::Owner;

use crate::console::Console;
use crate::curation::{change_dto, review_source, ChangeDto, EntryRef};
use crate::dto::ScopeDto;
use crate::error::{ApiError, ApiResult};
use crate::services::Services;
use crate::ErrorCode;

/// One side of a pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SupersededEntryDto {
    pub id: String,
    pub content: String,
    pub scope: ScopeDto,
    /// Local time, `yyyy-MM-dd HH:mm:ss`; core entries have none (they count as older).
    pub timestamp: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SupersededPairDto {
    pub older: SupersededEntryDto,
    pub newer: SupersededEntryDto,
    /// How sure the rules are, 0..1 (with the topic's closeness).
    pub score: f64,
    /// `phone`, `email`, `date`, `number`, `place`, `change`, `negation`, `preference` (the UI
    /// words it in zh and en).
    pub reason: String,
    /// The embeddings' cosine of the two entries.
    pub similarity: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SupersededDto {
    pub agent: Option<String>,
    /// Best first.
    pub pairs: Vec<SupersededPairDto>,
    /// Pairs left out because a person kept both.
    pub kept: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct SupersededCountDto {
    pub agent: Option<String>,
    pub pairs: u32,
    /// Why this owner could not be checked (its memory unreadable).
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// Delete the older entry.
    Newer,
    /// Delete the newer entry.
    Older,
    /// Delete nothing; the pair is not shown again (until an entry changes).
    Both,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ResolveSupersededArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub older: EntryRef,
    pub newer: EntryRef,
    pub keep: Keep,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct UnkeepArgs {
    #[serde(default)]
    pub agent: Option<String>,
    pub older: String,
    pub newer: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ResolvedDto {
    pub agent: Option<String>,
    pub keep: Keep,
    /// The change a keep-newer or keep-older made (undo takes it back); none for keep-both.
    pub change: Option<ChangeDto>,
}

/// An owner's entries oldest first: core entries (no time) first in their order, then by time,
/// entries of one time in their order.
fn ordered(view: &oryx_core::memory::MemoryView) -> Vec<(String, Scope, &Entry)> {
    let mut all: Vec<(String, Scope, &Entry)> = view
        .core
        .iter()
        .enumerate()
        .map(|(i, e)| (view.core_id(i), Scope::Core, e))
        .chain(view.archival.iter().enumerate().map(|(i, e)| {
            (
                view.archival_id(i + view.archival_offset, e),
                Scope::Archival,
                e,
            )
        }))
        .collect();
    all.sort_by_key(|(_, _, e)| e.timestamp);
    all
}

/// Vectors of texts already embedded in this process, by content hash: the review queue and
/// the dashboard ask again after every resolution, and only changed entries are new. Bounded:
/// past the limit it starts afresh.
fn cache() -> &'static Mutex<HashMap<u64, Vector>> {
    static C: OnceLock<Mutex<HashMap<u64, Vector>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

const CACHE_MAX: usize = 200_000;

fn embed_all(rt: &Services, texts: &[&str]) -> ApiResult<Vec<Vector>> {
    let hashes: Vec<u64> = texts.iter().map(|t| content_hash(t)).collect();
    let missing: Vec<usize> = {
        let c = cache().lock().unwrap_or_else(|p| p.into_inner());
        (0..texts.len())
            .filter(|&i| !c.contains_key(&hashes[i]))
            .collect()
    };
    if !missing.is_empty() {
        crate::recall::check_model("superseded facts")?;
        let slot = match rt.memory.semantic_index() {
            Some(index) => index.embedder().clone(),
            None => EmbedderSlot::shared(&oryx_core::embed::default_model_dir()),
        };
        let embedder: Arc<oryx_core::embed::Embedder> =
            slot.get().map_err(oryx_core::CoreError::from)?;
        let batch: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
        let vectors = embedder
            .embed_batch(&batch, &std::sync::atomic::AtomicBool::new(false))
            .map_err(oryx_core::CoreError::from)?;
        let mut c = cache().lock().unwrap_or_else(|p| p.into_inner());
        if c.len() + vectors.len() > CACHE_MAX {
            c.clear();
        }
        for (i, v) in missing.iter().zip(vectors) {
            c.insert(hashes[*i], v);
        }
    }
    let c = cache().lock().unwrap_or_else(|p| p.into_inner());
    Ok(hashes.iter().map(|h| c[h]).collect())
}

fn side(id: &str, scope: Scope, e: &Entry) -> SupersededEntryDto {
    SupersededEntryDto {
        id: id.to_string(),
        content: e.content.clone(),
        scope: scope.into(),
        timestamp: crate::dto::ts(&e.timestamp),
    }
}

impl Console {
    /// The owner's superseded pairs, best first, those kept both left out.
    pub fn superseded(&self, agent: Option<&str>) -> ApiResult<SupersededDto> {
        let rt = self.services();
        let owner = rt.owner(agent)?;
        self.superseded_of(&rt, &owner)
    }

    fn superseded_of(&self, rt: &Services, owner: &Owner) -> ApiResult<SupersededDto> {
        let view = rt.memory.view(owner)?;
        let entries = ordered(&view);
        let texts: Vec<&str> = entries.iter().map(|(_, _, e)| e.content.as_str()).collect();
        let vectors = embed_all(rt, &texts)?;
        let found = superseded::find(&texts, &vectors, &Thresholds::default());
        let kept = Reviews::superseded_kept(&self.index_dir()).load(&review_source(rt, owner))?;
        let key_of = |i: usize| entry_key(entries[i].1, entries[i].2);
        let mut pairs = Vec::new();
        let mut hidden = 0;
        for p in found {
            if kept
                .as_ref()
                .is_some_and(|k| k.has(pair_key(key_of(p.older), key_of(p.newer))))
            {
                hidden += 1;
                continue;
            }
            let (o, n) = (&entries[p.older], &entries[p.newer]);
            pairs.push(SupersededPairDto {
                older: side(&o.0, o.1, o.2),
                newer: side(&n.0, n.1, n.2),
                score: crate::dto::score(p.verdict.score),
                reason: p.verdict.reason.as_str().to_string(),
                similarity: crate::dto::score(p.cosine),
            });
        }
        Ok(SupersededDto {
            agent: owner.agent_name().map(str::to_string),
            pairs,
            kept: hidden,
        })
    }

    /// How many pairs each owner has (the global memory and every agent), for the dashboard.
    pub fn superseded_counts(&self) -> ApiResult<Vec<SupersededCountDto>> {
        let rt = self.services();
        crate::recall::check_model("superseded facts")?;
        let mut out = Vec::new();
        for owner in crate::recall::owners(&rt)? {
            let agent = owner.agent_name().map(str::to_string);
            match self.superseded_of(&rt, &owner) {
                Ok(d) => out.push(SupersededCountDto {
                    agent,
                    pairs: d.pairs.len() as u32,
                    error: None,
                }),
                Err(e) => out.push(SupersededCountDto {
                    agent,
                    pairs: 0,
                    error: Some(e.message),
                }),
            }
        }
        Ok(out)
    }

    /// Keeps the newer, the older (one change: the other is deleted) or both (a dismissal).
    pub fn resolve_superseded(&self, a: &ResolveSupersededArgs) -> ApiResult<ResolvedDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let target = |r: &EntryRef| Target {
            id: r.id.clone(),
            expect: r.expect.clone(),
        };
        let change = match a.keep {
            Keep::Newer | Keep::Older => {
                let gone = if a.keep == Keep::Newer {
                    &a.older
                } else {
                    &a.newer
                };
                let c = rt.memory.change(&owner, &[target(gone)], &Action::Delete);
                rt.page_cache.forget(&rt.memory, &owner);
                let c = c?;
                self.announce_write(&rt, &owner);
                Some(change_dto(&c, false))
            }
            Keep::Both => {
                let key = self.pair_key_of(&rt, &owner, &a.older.id, &a.newer.id)?;
                Reviews::superseded_kept(&self.index_dir())
                    .add(&review_source(&rt, &owner), &[key])?;
                None
            }
        };
        Ok(ResolvedDto {
            agent: owner.agent_name().map(str::to_string),
            keep: a.keep,
            change,
        })
    }

    /// Takes back a keep-both: the pair is shown again.
    pub fn superseded_unkeep(&self, a: &UnkeepArgs) -> ApiResult<ResolvedDto> {
        let rt = self.services();
        let owner = rt.owner(a.agent.as_deref())?;
        let key = self.pair_key_of(&rt, &owner, &a.older, &a.newer)?;
        Reviews::superseded_kept(&self.index_dir()).remove(&review_source(&rt, &owner), &[key])?;
        Ok(ResolvedDto {
            agent: owner.agent_name().map(str::to_string),
            keep: Keep::Both,
            change: None,
        })
    }

    fn pair_key_of(
        &self,
        rt: &Services,
        owner: &Owner,
        older: &str,
        newer: &str,
    ) -> ApiResult<u64> {
        let view = rt.memory.view(owner)?;
        let entries = ordered(&view);
        let key = |id: &str| {
            entries
                .iter()
                .find(|(i, _, _)| i == id)
                .map(|(_, scope, e)| entry_key(*scope, e))
                .ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::NotFound,
                        format!("no memory entry with id {id:?}"),
                    )
                })
        };
        Ok(pair_key(key(older)?, key(newer)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::demo_console as console;

    #[test]
    fn a_pair_is_found_resolved_and_undone() {
        let (_d, c) = console();
        let agent = Some("assistant");
        let add = |text: &str| {
            c.append_memory(&crate::dto::AppendRequest {
                agent: agent.map(str::to_string),
                content: text.into(),
                scope: ScopeDto::Archival,
            })
            .unwrap();
        };
        add("用户住在北京");
        add("Alice's phone number is 555-123-4567");
        add("Bob's phone number is 555-987-6543");
        add("用户搬到上海了");
        let d = c.superseded(agent).unwrap();
        let p = d
            .pairs
            .iter()
            .find(|p| p.older.content == "用户住在北京")
            .expect("the move is found");
        assert_eq!(p.newer.content, "用户搬到上海了");
        assert_eq!(p.reason, "place");
        assert!(!d.pairs.iter().any(|p| p.newer.content.contains("Bob")));
        // Keep both: hidden, then shown again.
        let args = |keep| ResolveSupersededArgs {
            agent: agent.map(str::to_string),
            older: EntryRef {
                id: p.older.id.clone(),
                expect: Some(p.older.content.clone()),
            },
            newer: EntryRef {
                id: p.newer.id.clone(),
                expect: Some(p.newer.content.clone()),
            },
            keep,
        };
        c.resolve_superseded(&args(Keep::Both)).unwrap();
        let d2 = c.superseded(agent).unwrap();
        assert_eq!(d2.kept, 1);
        assert!(!d2.pairs.iter().any(|q| q.older.content == "用户住在北京"));
        c.superseded_unkeep(&UnkeepArgs {
            agent: agent.map(str::to_string),
            older: p.older.id.clone(),
            newer: p.newer.id.clone(),
        })
        .unwrap();
        assert_eq!(c.superseded(agent).unwrap().kept, 0);
        // Keep the newer: one change deleting the older; undo brings it back.
        let r = c.resolve_superseded(&args(Keep::Newer)).unwrap();
        assert_eq!(r.change.as_ref().unwrap().entries.len(), 1);
        assert!(!c
            .superseded(agent)
            .unwrap()
            .pairs
            .iter()
            .any(|q| q.older.content == "用户住在北京"));
        c.undo_change(agent, None).unwrap();
        assert!(c
            .superseded(agent)
            .unwrap()
            .pairs
            .iter()
            .any(|q| q.older.content == "用户住在北京"));
    }
}
