//! A host's CPUs as Linux shows them: CPU lists (`0-3,8`), the sockets and
//! physical cores of `/sys/devices/system/cpu`, and which CPUs this
//! process's threads may run on.

/// The most CPUs a set holds: glibc's `CPU_SETSIZE`, what
/// `sched_setaffinity` takes without a dynamically sized mask.
pub const MAX_CPUS: usize = 1024;

/// How many 64-bit words a [`CpuSet`] takes on the wire.
pub const WORDS: usize = MAX_CPUS / 64;

/// A set of CPU numbers below [`MAX_CPUS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuSet {
    pub words: [u64; WORDS],
}

impl CpuSet {
    /// The CPUs of a Linux CPU list such as `0-3,8,10-11`; CPUs at or above
    /// [`MAX_CPUS`] and unreadable parts are left out.
    pub fn parse(list: &str) -> CpuSet {
        let mut set = CpuSet::default();
        for part in list.trim().split(',').map(str::trim) {
            let range = match part.split_once('-') {
                Some((a, b)) => a.trim().parse::<usize>().ok().zip(b.trim().parse().ok()),
                None => part.parse::<usize>().ok().map(|a| (a, a)),
            };
            if let Some((a, b)) = range {
                (a..=b.min(MAX_CPUS - 1)).for_each(|cpu| set.insert(cpu));
            }
        }
        set
    }

    pub fn insert(&mut self, cpu: usize) {
        if cpu < MAX_CPUS {
            self.words[cpu / 64] |= 1 << (cpu % 64);
        }
    }

    pub fn contains(&self, cpu: usize) -> bool {
        cpu < MAX_CPUS && self.words[cpu / 64] & (1 << (cpu % 64)) != 0
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its CPUs, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..MAX_CPUS).filter(|&cpu| self.contains(cpu))
    }

    pub fn union(&self, other: &CpuSet) -> CpuSet {
        let mut words = self.words;
        words.iter_mut().zip(other.words).for_each(|(a, b)| *a |= b);
        CpuSet { words }
    }

    /// Whether every CPU of this set is in `other`.
    pub fn is_subset(&self, other: &CpuSet) -> bool {
        self.words.iter().zip(other.words).all(|(a, b)| a & !b == 0)
    }

    /// The one CPU of a set of one.
    pub fn only(&self) -> Option<usize> {
        (self.len() == 1).then(|| self.iter().next()).flatten()
    }
}

/// The CPUs online on this host (`/sys/devices/system/cpu/online`); empty
/// where unknown.
pub fn online() -> CpuSet {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .map(|list| CpuSet::parse(&list))
        .unwrap_or_default()
}

/// The CPUs some thread of this process may run on: the union over
/// `/proc/self/task/*/status` of `Cpus_allowed_list`, as the kernel keeps
/// it. A process whose main thread is bound while a thread of the library
/// (a progress thread) still roams is not bound. Empty where unknown.
pub fn allowed() -> CpuSet {
    let status = |path: std::path::PathBuf| -> Option<CpuSet> {
        let text = std::fs::read_to_string(path).ok()?;
        let line = text.lines().find(|l| l.starts_with("Cpus_allowed_list:"))?;
        Some(CpuSet::parse(line.split_once(':')?.1))
    };
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten();
    let union = tasks
        .flatten()
        .filter_map(|task| status(task.path().join("status")))
        .fold(CpuSet::default(), |all, set| all.union(&set));
    match union.is_empty() {
        true => status("/proc/self/status".into()).unwrap_or_default(),
        false => union,
    }
}

/// One CPU (hardware thread) and where it sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    pub cpu: usize,
    /// `physical_package_id`: the socket.
    pub package: usize,
    /// `core_id`: the physical core within its socket, which SMT siblings share.
    pub core: usize,
}

/// This host's online CPUs with their sockets and cores, from
/// `/sys/devices/system/cpu/cpuN/topology`; a CPU whose topology cannot
/// be read counts as a core of its own on socket 0.
pub fn topology() -> Vec<Cpu> {
    let read = |cpu: usize, file: &str| -> Option<usize> {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{file}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    online()
        .iter()
        .map(
            |cpu| match (read(cpu, "physical_package_id"), read(cpu, "core_id")) {
                (Some(package), Some(core)) => Cpu { cpu, package, core },
                _ => Cpu {
                    cpu,
                    package: 0,
                    core: MAX_CPUS + cpu,
                },
            },
        )
        .collect()
}

/// The CPUs in the order ranks get them: one hardware thread of every
/// physical core first, the sockets taking turns (socket 0's first core,
/// socket 1's first core, socket 0's second core, …), then the cores'
/// second threads in the same order, and so on. Ranks numbered in this
/// order get distinct physical cores while there are cores, spread over
/// the sockets' caches and memory; SMT siblings, which share a core's
/// execution units, come last.
pub fn spread(cpus: &[Cpu]) -> Vec<usize> {
    use std::collections::BTreeMap;
    // socket → core → its threads, each in ascending order.
    let mut sockets: BTreeMap<usize, BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
    for c in cpus {
        let threads = sockets
            .entry(c.package)
            .or_default()
            .entry(c.core)
            .or_default();
        threads.push(c.cpu);
        threads.sort_unstable();
    }
    let sockets: Vec<Vec<Vec<usize>>> = sockets
        .into_values()
        .map(|cores| cores.into_values().collect())
        .collect();
    let most_cores = sockets.iter().map(Vec::len).max().unwrap_or(0);
    let most_threads = sockets.iter().flatten().map(Vec::len).max().unwrap_or(0);
    let mut order = Vec::with_capacity(cpus.len());
    for thread in 0..most_threads {
        for core in 0..most_cores {
            for socket in &sockets {
                if let Some(&cpu) = socket.get(core).and_then(|t| t.get(thread)) {
                    order.push(cpu);
                }
            }
        }
    }
    order
}

/// Binds every thread of this process to `cpu` (`sched_setaffinity` on
/// each task of `/proc/self/task`, as hwloc's process binding does on
/// Linux). hwloc is not needed for this: the kernel's interface and the
/// topology in /sys are all it would read here, and not requiring it
/// keeps pgcheck buildable wherever rsmpi is. Threads the library started
/// (progress threads) are bound too, so none of them competes with
/// another rank's core. Fails when the main thread cannot be bound.
pub fn bind_process(cpu: usize) -> Result<(), String> {
    if cpu >= MAX_CPUS {
        return Err(format!("CPU {cpu} is beyond the {MAX_CPUS} a mask holds"));
    }
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET writes within it.
    let mask = unsafe {
        let mut mask: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut mask);
        mask
    };
    let bind = |tid: libc::pid_t| {
        // SAFETY: the mask is a valid cpu_set_t of the size given.
        let rc = unsafe { libc::sched_setaffinity(tid, std::mem::size_of_val(&mask), &mask) };
        match rc {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    };
    // The calling thread first: it is the one that measures.
    bind(0).map_err(|e| format!("sched_setaffinity to CPU {cpu}: {e}"))?;
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten();
    for task in tasks.flatten() {
        if let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) {
            // A thread may have ended since the listing: nothing to bind.
            let _ = bind(tid);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_hold_ranges_and_singles() {
        assert_eq!(CpuSet::parse("0-1\n").len(), 2);
        assert_eq!(CpuSet::parse("0").only(), Some(0));
        let set = CpuSet::parse("\t0-3,8,10-11");
        assert_eq!(set.iter().collect::<Vec<_>>(), [0, 1, 2, 3, 8, 10, 11]);
        assert!(CpuSet::parse("").is_empty());
        assert_eq!(CpuSet::parse("1000-2000").len(), MAX_CPUS - 1000);
    }

    /// `sockets` × `cores` × `threads`, numbered as Linux numbers them on
    /// most x86 machines: every core's first thread, then the siblings.
    fn machine(sockets: usize, cores: usize, threads: usize) -> Vec<Cpu> {
        let mut cpus = Vec::new();
        for t in 0..threads {
            for s in 0..sockets {
                for c in 0..cores {
                    cpus.push(Cpu {
                        cpu: t * sockets * cores + s * cores + c,
                        package: s,
                        core: c,
                    });
                }
            }
        }
        cpus
    }

    #[test]
    fn cores_come_before_siblings_and_sockets_take_turns() {
        // Socket 0: cores 0,1 (CPUs 0,1; siblings 4,5); socket 1: 2,3 (6,7).
        assert_eq!(spread(&machine(2, 2, 2)), [0, 2, 1, 3, 4, 6, 5, 7]);
        assert_eq!(spread(&machine(1, 2, 1)), [0, 1]);
        // Unequal sockets: the larger one's last cores follow.
        let mut uneven = machine(2, 2, 1);
        uneven.push(Cpu {
            cpu: 9,
            package: 0,
            core: 7,
        });
        assert_eq!(spread(&uneven), [0, 2, 1, 3, 9]);
    }
}
