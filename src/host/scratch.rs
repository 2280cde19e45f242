//! Bytes kept out of memory: appended to an unnamed temporary file and
//! read back by where they went, in memory where no file can be written.

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// An append-only store of byte strings.
#[derive(Debug, Default)]
pub struct Scratch {
    /// Unlinked at once: it disappears with the process, however it ends.
    file: Option<File>,
    file_len: u64,
    /// Where bytes go when there is no file or it cannot be written.
    memory: Vec<u8>,
}

/// Where appended bytes are.
#[derive(Debug, Clone, Copy)]
pub enum Location {
    File(u64),
    Memory(usize),
}

impl Scratch {
    /// Keeps `bytes`; says where.
    pub fn append(&mut self, bytes: &[u8]) -> Location {
        if self.file.is_none() && self.file_len == 0 && self.memory.is_empty() {
            self.file = unnamed_file().ok();
        }
        match &self.file {
            Some(file) if file.write_all_at(bytes, self.file_len).is_ok() => {
                let at = Location::File(self.file_len);
                self.file_len += bytes.len() as u64;
                at
            }
            _ => {
                let at = Location::Memory(self.memory.len());
                self.memory.extend_from_slice(bytes);
                at
            }
        }
    }

    /// The `len` bytes appended at `at`.
    pub fn read(&self, at: Location, len: usize) -> Cow<'_, [u8]> {
        match at {
            Location::File(offset) => {
                let mut bytes = vec![0u8; len];
                self.file
                    .as_ref()
                    .expect("appended to a file")
                    .read_exact_at(&mut bytes, offset)
                    .expect("the scratch file cannot be read");
                Cow::Owned(bytes)
            }
            Location::Memory(offset) => Cow::Borrowed(&self.memory[offset..offset + len]),
        }
    }

    /// The bytes held in memory (none while the file can be written).
    pub fn bytes_in_memory(&self) -> usize {
        self.memory.len()
    }
}

/// A temporary file without a name: created, then unlinked while open.
fn unnamed_file() -> std::io::Result<File> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!(".pgcheck-{}-{n}.spill", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_come_back_from_where_they_went() {
        let mut scratch = Scratch::default();
        let a = scratch.append(b"first");
        let b = scratch.append(b"");
        let c = scratch.append(b"second");
        assert!(matches!(a, Location::File(0)), "{a:?}");
        assert_eq!(&*scratch.read(c, 6), b"second");
        assert_eq!(&*scratch.read(a, 5), b"first");
        assert_eq!(&*scratch.read(b, 0), b"");
        assert_eq!(scratch.bytes_in_memory(), 0);
    }
}
