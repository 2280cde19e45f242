//! This process and its host as the operating system shows them: the
//! memory the process holds and has held, the host's memory and the size
//! of its last-level cache, its CPUs (`cpus`), the MPI library it loaded;
//! and a scratch file for bytes kept out of memory (`scratch`). Local reads
//! of `/proc` and `/sys`, no MPI (`measure` takes their largest over the
//! ranks). With `store` and `config`, the only module that touches files.

pub mod cpus;
pub mod scratch;

/// The host's memory in bytes (`/proc/meminfo`'s `MemTotal`), if known.
pub fn total_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?;
    Some(kib << 10)
}

/// The MPI library this process has loaded (`/proc/self/maps`), its path
/// and its bytes.
pub fn loaded_mpi_library() -> Result<(std::path::PathBuf, Vec<u8>), String> {
    let maps =
        std::fs::read_to_string("/proc/self/maps").map_err(|e| format!("/proc/self/maps: {e}"))?;
    let path = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|path| {
            let file = path.rsplit('/').next().unwrap_or("");
            file.starts_with("libmpich.so") || file.starts_with("libmpi.so")
        })
        .ok_or("no MPI library (libmpich.so, libmpi.so) is loaded")?;
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    Ok((path.into(), bytes))
}

/// The largest resident set this process has had, in bytes (`getrusage`);
/// 0 where unknown.
pub fn peak_rss_bytes() -> u64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return 0;
        }
        usage
    };
    let maxrss = u64::try_from(usage.ru_maxrss).unwrap_or(0);
    // Kibibytes on Linux and the BSDs, bytes on macOS.
    match cfg!(target_os = "macos") {
        true => maxrss,
        false => maxrss * 1024,
    }
}

/// This process's resident set now, in bytes (Linux's `/proc/self/statm`;
/// 0 elsewhere).
pub fn resident_bytes() -> u64 {
    // SAFETY: sysconf reads a constant of the system.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * page)
}

/// The size of the last-level cache, from sysfs; 32 MiB when unknown.
pub fn last_level_cache_bytes() -> usize {
    let parse = |text: &str| {
        let text = text.trim();
        let (digits, unit) = text.split_at(
            text.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(text.len()),
        );
        let n: usize = digits.parse().ok()?;
        Some(match unit {
            "K" => n << 10,
            "M" => n << 20,
            _ => n,
        })
    };
    (0..8)
        .rev()
        .find_map(|i| {
            let path = format!("/sys/devices/system/cpu/cpu0/cache/index{i}/size");
            std::fs::read_to_string(path).ok().and_then(|t| parse(&t))
        })
        .unwrap_or(32 << 20)
}
