//! The communication schedules of the circulant algorithms as pure
//! functions of the process count and a relative rank: no MPI here, so the
//! tests can simulate every schedule for many process counts.
//!
//! All algorithms use the skips `s_0 = 1 < s_1 < … < s_q = p` with
//! `s_k = ⌈s_{k+1}/2⌉`, `q = ⌈log2 p⌉`; in round `k` a process talks only
//! to the processes `s_k` ahead of and behind it (mod p).

use std::ops::Range;

/// The skips `[s_0, …, s_q]` of `p` processes (`[1]` for one process).
///
/// # Panics
/// If `p` is 0.
pub fn skips(p: usize) -> Vec<usize> {
    assert!(p > 0, "at least one process");
    let mut skips = vec![p];
    while let Some(&last) = skips.last().filter(|&&s| s > 1) {
        skips.push(last.div_ceil(2));
    }
    skips.reverse();
    skips
}

/// One round of the reduce-scatter or allgather on blocks rotated so that
/// relative block `i` is global block `rank + i` (mod p).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The distance to the partners.
    pub skip: usize,
    /// The relative blocks sent.
    pub send: Range<usize>,
    /// The relative blocks the received blocks go to (combined into them
    /// by the reduce-scatter, stored by the allgather).
    pub recv: Range<usize>,
}

/// Reduce-scatter rounds: send `send` to `rank + skip`, receive as many
/// blocks from `rank − skip` and combine them into `recv`. Afterwards
/// relative block 0 holds the reduction of this process's block.
pub fn reduce_scatter_rounds(skips: &[usize]) -> impl Iterator<Item = Exchange> + '_ {
    skips.windows(2).rev().map(|pair| {
        let (near, far) = (pair[0], pair[1]);
        Exchange {
            skip: near,
            send: near..far,
            recv: 0..far - near,
        }
    })
}

/// Allgather rounds, starting from relative block 0 only: send `send` to
/// `rank − skip` and store the blocks received from `rank + skip` in
/// `recv`. Afterwards all `p` relative blocks are present.
pub fn allgather_rounds(skips: &[usize]) -> impl Iterator<Item = Exchange> + '_ {
    skips.windows(2).map(|pair| {
        let (near, far) = (pair[0], pair[1]);
        Exchange {
            skip: near,
            send: 0..far - near,
            recv: near..far,
        }
    })
}

/// One step of a circulant scatter or gather, in relative ranks (the root
/// is 0) and blocks indexed by the relative rank they belong to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The round (skip index) of the step.
    pub round: usize,
    pub transfer: Transfer,
}

/// What a [`Step`] moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transfer {
    /// Receive `blocks` from relative rank `from`.
    Recv { from: usize, blocks: Range<usize> },
    /// Send `blocks` to relative rank `to`.
    Send { to: usize, blocks: Range<usize> },
}

/// The scatter steps of relative rank `v`, in order: at most one receive
/// (the blocks `[v, hi)`), then sends of ever smaller upper parts. In round
/// `k` (from `q − 1` down to 0) a holder of `[u, hi)` with `hi − u > s_k`
/// hands `[u + s_k, hi)` to `u + s_k`.
pub fn scatter_steps(skips: &[usize], v: usize) -> Vec<Step> {
    let p = *skips.last().expect("skips are never empty");
    assert!(v < p, "relative rank {v} out of range");
    // The holder whose range contains v, and that range's end.
    let (mut holder, mut hi) = (0, p);
    let mut steps = Vec::new();
    for k in (0..skips.len() - 1).rev() {
        let s = skips[k];
        if hi - holder <= s {
            continue;
        }
        let split = holder + s;
        if holder == v {
            steps.push(Step {
                round: k,
                transfer: Transfer::Send {
                    to: split,
                    blocks: split..hi,
                },
            });
            hi = split;
        } else if v >= split {
            if v == split {
                steps.push(Step {
                    round: k,
                    transfer: Transfer::Recv {
                        from: holder,
                        blocks: split..hi,
                    },
                });
            }
            holder = split;
        } else {
            hi = split;
        }
    }
    steps
}

/// The gather steps of relative rank `v`: the scatter's steps reversed.
pub fn gather_steps(skips: &[usize], v: usize) -> Vec<Step> {
    scatter_steps(skips, v)
        .into_iter()
        .rev()
        .map(|Step { round, transfer }| Step {
            round,
            transfer: match transfer {
                Transfer::Recv { from, blocks } => Transfer::Send { to: from, blocks },
                Transfer::Send { to, blocks } => Transfer::Recv { from: to, blocks },
            },
        })
        .collect()
}

/// The baseblock of relative rank `v` of the round-optimal broadcast: the
/// smallest skip index in the greedy decomposition of `v` into distinct
/// skips, the first block `v` receives (`q` for the root).
pub fn baseblock(skips: &[usize], v: usize) -> usize {
    let q = skips.len() - 1;
    let mut sum = 0;
    for k in (0..q).rev() {
        if sum + skips[k] == v {
            return k;
        }
        if sum + skips[k] < v {
            sum += skips[k];
        }
    }
    q
}

/// The receive schedule of relative rank `v > 0` in the round-optimal
/// broadcast: in round `k` of every phase of `q` rounds, `v` receives from
/// `v − s_k` block `recv[k]` plus `q` times the phase. One entry is the
/// baseblock `b`; the others are `e − q` for the other `e < q`, blocks of
/// the previous phase, so every block arrives exactly once.
///
/// Round `k`'s block is the label `e` of a node `u = s_{e_1} + … + s_e`
/// (skip indices non-increasing, `u` in the doubled range `[0, 2p)`) that
/// lies in the window `(v + p − s_{k+1}, v + p − s_k]`, labels used once,
/// nodes decreasing from round to round, found by a depth-first search of
/// the nodes in decreasing order (Träff, "Round-optimal n-block broadcast
/// schedules in logarithmic time", 2023). The label `q` (node `p`, the root
/// one phase later) stands for the baseblock.
///
/// # Panics
/// If `v` is 0 or not below `p`, or the search does not fill every round
/// (never, for the process counts the tests cover).
pub fn recv_schedule(skips: &[usize], v: usize) -> Vec<isize> {
    let q = skips.len() - 1;
    let p = skips[q];
    assert!(0 < v && v < p, "relative rank {v} has no receive schedule");
    assert!(q < 63, "more than 2^62 processes");
    let base = baseblock(skips, v);
    let mut search = RecvSearch {
        skips,
        target: v + p,
        free: ((1u64 << (q + 1)) - 1) & !(1 << base),
        bound: 2 * p,
        labels: Vec::with_capacity(q),
    };
    search.visit(0, q);
    assert_eq!(
        search.labels.len(),
        q,
        "receive schedule of {v} of {p} incomplete"
    );
    search
        .labels
        .iter()
        .map(|&e| {
            if e == q {
                base as isize
            } else {
                e as isize - q as isize
            }
        })
        .collect()
}

/// The depth-first search of [`recv_schedule`].
struct RecvSearch<'a> {
    skips: &'a [usize],
    /// `v + p`: the receiving process in the doubled range.
    target: usize,
    /// Labels (skip indices) not used yet, as bits.
    free: u64,
    /// Chosen nodes decrease: the next must lie below this one.
    bound: usize,
    /// The label chosen for each round so far.
    labels: Vec<usize>,
}

impl RecvSearch<'_> {
    fn rounds(&self) -> usize {
        self.skips.len() - 1
    }

    /// Visits the nodes `node + s_e` for the free labels `e ≤ top`, largest
    /// first, and their descendants.
    fn visit(&mut self, node: usize, top: usize) {
        let mut below = top + 1;
        while self.labels.len() < self.rounds() {
            // The largest free label below `below`.
            let candidates = self.free & ((1u64 << below) - 1);
            if candidates == 0 {
                return;
            }
            let e = 63 - candidates.leading_zeros() as usize;
            below = e;
            let child = node + self.skips[e];
            let k = self.labels.len();
            if child + self.skips[k] > self.target || child >= self.bound {
                continue;
            }
            if child + self.skips[k + 1] <= self.target {
                // The window lies beyond `child`: look among its descendants.
                self.visit(child, e);
                if self.labels.len() == self.rounds() {
                    return;
                }
            }
            let k = self.labels.len();
            if node + self.skips[k + 1] > self.target {
                // The window has moved below this node: back to the parent.
                return;
            }
            assert!(self.free & (1 << e) != 0, "label {e} used twice");
            self.bound = child;
            self.free &= !(1 << e);
            self.labels.push(e);
        }
    }
}

/// The periodic schedule of one process in the round-optimal broadcast
/// (relative ranks: the root is 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSchedule {
    /// Block received in round `k` of phase 0 (`None` on the root).
    recv: Vec<Option<isize>>,
    /// Block sent in round `k` of phase 0: the receive schedule of the
    /// receiver at `k` (`None` when the receiver is the root).
    send: Vec<Option<isize>>,
}

/// The blocks one process sends to `rank + s_k` and receives from
/// `rank − s_k` in one round of the n-block broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRound {
    /// The skip index of the round.
    pub k: usize,
    pub send: Option<usize>,
    pub recv: Option<usize>,
}

impl BlockSchedule {
    /// The schedule of relative rank `v` among `p` processes.
    pub fn new(p: usize, v: usize) -> BlockSchedule {
        let skips = skips(p);
        let q = skips.len() - 1;
        let recv = match v {
            0 => vec![None; q],
            _ => recv_schedule(&skips, v).into_iter().map(Some).collect(),
        };
        let send = (0..q)
            .map(|k| match (v + skips[k]) % p {
                0 => None,
                to => Some(recv_schedule(&skips, to)[k]),
            })
            .collect();
        BlockSchedule { recv, send }
    }

    /// The schedules of all `p` processes, each receive schedule computed
    /// once.
    pub fn all(p: usize) -> Vec<BlockSchedule> {
        let skips = skips(p);
        let q = skips.len() - 1;
        let recv: Vec<Vec<Option<isize>>> = (0..p)
            .map(|v| match v {
                0 => vec![None; q],
                _ => recv_schedule(&skips, v).into_iter().map(Some).collect(),
            })
            .collect();
        (0..p)
            .map(|v| BlockSchedule {
                recv: recv[v].clone(),
                send: (0..q).map(|k| recv[(v + skips[k]) % p][k]).collect(),
            })
            .collect()
    }

    /// The receive schedule, `None` on the root.
    pub fn recv(&self) -> &[Option<isize>] {
        &self.recv
    }

    /// The send schedule, `None` where the receiver is the root.
    pub fn send(&self) -> &[Option<isize>] {
        &self.send
    }

    /// Rounds of an `n`-block broadcast: `n − 1 + q`, none for `n = 0` or
    /// one process.
    pub fn rounds(&self, n: usize) -> usize {
        let q = self.recv.len();
        if n == 0 || q == 0 {
            0
        } else {
            n - 1 + q
        }
    }

    /// The blocks of round `j` of an `n`-block broadcast.
    pub fn round(&self, j: usize, n: usize) -> BlockRound {
        let (k, offset) = nblock_position(self.recv.len(), j, n);
        BlockRound {
            k,
            send: nblock_block(self.send[k], offset, n),
            recv: nblock_block(self.recv[k], offset, n),
        }
    }

    /// Every round of an `n`-block broadcast.
    pub fn plan(&self, n: usize) -> Vec<BlockRound> {
        (0..self.rounds(n)).map(|j| self.round(j, n)).collect()
    }
}

/// Where round `j` of an `n`-block broadcast falls in the periodic schedule
/// of `q` rounds a phase: its skip index `k` and the number to add to the
/// scheduled blocks. The periodic schedule starts early by `(−(n−1)) mod q`
/// rounds, in which only blocks before the first would move, so that the
/// last block leaves the root in the first round of the last phase.
pub fn nblock_position(q: usize, j: usize, n: usize) -> (usize, isize) {
    let early = (q - (n - 1) % q) % q;
    let i = j + early;
    (i % q, (i / q * q) as isize - early as isize)
}

/// The block a scheduled entry means at `offset` ([`nblock_position`]):
/// none before the first block; blocks after the last are the last, of
/// which every process receives exactly one (its baseblock of the last
/// phase), so none arrives twice.
pub fn nblock_block(scheduled: Option<isize>, offset: isize, n: usize) -> Option<usize> {
    let block = usize::try_from(scheduled? + offset).ok()?;
    Some(block.min(n - 1))
}

/// Blocks of the n-block broadcast for `bytes` bytes on `p` processes.
///
/// With `n` blocks the broadcast takes `n − 1 + q` rounds of `α + β·m/n`;
/// the time is least at `n = √((q − 1)·m·β/α)`. The rule takes
/// `α/β = 8 KiB` (the size whose transfer takes as long as the latency),
/// rounds, and clamps to `[1, 512]`: one block for `p ≤ 2`, where splitting
/// only adds rounds, and for small messages.
pub fn nblock_blocks(bytes: usize, p: usize) -> usize {
    let q = skips(p.max(1)).len() - 1;
    let optimum = ((q.saturating_sub(1) as f64) * bytes as f64 / 8192.0).sqrt();
    (optimum.round() as usize).clamp(1, 512)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_halve_rounding_up() {
        assert_eq!(skips(1), vec![1]);
        assert_eq!(skips(2), vec![1, 2]);
        assert_eq!(skips(17), vec![1, 2, 3, 5, 9, 17]);
        assert_eq!(skips(24), vec![1, 2, 3, 6, 12, 24]);
        for p in 1..=600usize {
            assert_eq!(
                skips(p).len() - 1,
                p.next_power_of_two().trailing_zeros() as usize
            );
        }
    }

    #[test]
    fn block_rule() {
        assert_eq!(nblock_blocks(1 << 20, 2), 1);
        assert_eq!(nblock_blocks(100, 16), 1);
        // q = 4: √(3 · 128) ≈ 19.6.
        assert_eq!(nblock_blocks(1 << 20, 16), 20);
        assert_eq!(nblock_blocks(1 << 40, 1000), 512);
    }

    /// Runs `check` for p = 1..=max, spread over the available threads.
    fn for_all_p(max: usize, check: fn(usize)) {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        std::thread::scope(|scope| {
            for t in 0..threads {
                scope.spawn(move || {
                    for p in (1..=max).rev().filter(|p| p % threads == t) {
                        check(p);
                    }
                });
            }
        });
    }

    // The reduce-scatter and the allgather are the same on every process in
    // relative blocks, and a process's partners are rotations of it: the
    // state of process r − s equals that of r, seen from r shifted by s. So
    // the simulation of one process, with its partners' blocks taken from
    // its own state, is the simulation of all of them.

    /// Reduce-scatter: `offsets[i]` holds the contributors of relative
    /// block i as distances behind this process. In the end block 0 must
    /// hold each of the p contributions exactly once.
    fn simulate_reduce_scatter(p: usize) {
        let s = skips(p);
        let mut offsets: Vec<Vec<usize>> = vec![vec![0]; p];
        let mut live = p;
        for round in reduce_scatter_rounds(&s) {
            assert_eq!(round.send.end, live, "p {p}: sends the upper live blocks");
            assert_eq!(round.send.len(), round.recv.len());
            assert!(round.recv.end <= round.send.start, "p {p}: overlap");
            for (mine, theirs) in round.recv.clone().zip(round.send.clone()) {
                // Block `theirs` of process r − skip is block `mine` of r.
                let received: Vec<usize> = offsets[theirs]
                    .iter()
                    .map(|d| (d + round.skip) % p)
                    .collect();
                offsets[mine].extend(received);
            }
            // Only the blocks below the skip are kept.
            live = round.skip;
        }
        assert_eq!(live, 1, "p {p}");
        let mut result = offsets.swap_remove(0);
        result.sort_unstable();
        assert!(
            result.into_iter().eq(0..p),
            "p {p}: not every contribution once"
        );
    }

    #[test]
    fn reduce_scatter_combines_every_contribution_once() {
        for_all_p(600, simulate_reduce_scatter);
    }

    /// Allgather: `ahead[i]` is how far ahead of this process the owner of
    /// the global block in relative block i is. Every block must be
    /// received once, sent only once held, and land where it belongs.
    fn simulate_allgather(p: usize) {
        let s = skips(p);
        let mut ahead: Vec<Option<usize>> = vec![None; p];
        ahead[0] = Some(0);
        for round in allgather_rounds(&s) {
            assert_eq!(round.send.len(), round.recv.len());
            assert!(round.send.end <= round.recv.start, "p {p}: overlap");
            for (mine, theirs) in round.recv.clone().zip(round.send.clone()) {
                // Block `theirs` of process r + skip goes to block `mine` of r.
                let owner = ahead[theirs].expect("forwarded before received");
                assert!(ahead[mine].is_none(), "p {p}: received twice");
                ahead[mine] = Some((owner + round.skip) % p);
            }
        }
        for (i, owner) in ahead.into_iter().enumerate() {
            assert_eq!(owner, Some(i), "p {p}: block {i}");
        }
    }

    #[test]
    fn allgather_delivers_every_block_once() {
        for_all_p(600, simulate_allgather);
    }

    /// Runs the steps of all processes round by round from `rounds`; in
    /// each round a sender's step must meet the matching receive step, and
    /// `transfer(from, to, blocks)` applies it.
    fn run_steps(
        p: usize,
        steps: &[Vec<Step>],
        rounds: impl Iterator<Item = usize>,
        mut transfer: impl FnMut(usize, usize, &Range<usize>),
    ) {
        let mut next = vec![0; p];
        for round in rounds {
            for v in 0..p {
                let Some(Step {
                    round: r,
                    transfer: Transfer::Send { to, blocks },
                }) = steps[v].get(next[v])
                else {
                    continue;
                };
                if *r != round {
                    continue;
                }
                let expected = Step {
                    round,
                    transfer: Transfer::Recv {
                        from: v,
                        blocks: blocks.clone(),
                    },
                };
                assert_eq!(
                    steps[*to].get(next[*to]),
                    Some(&expected),
                    "p {p}: unmatched"
                );
                transfer(v, *to, blocks);
                next[v] += 1;
                next[*to] += 1;
            }
        }
        for v in 0..p {
            assert_eq!(next[v], steps[v].len(), "p {p}: steps of {v} left over");
        }
    }

    /// Scatter: every process ends with exactly its block; gather: the root
    /// ends with all blocks, each process sending what it holds once.
    fn simulate_scatter_gather(p: usize) {
        let s = skips(p);
        let q = s.len() - 1;
        let mut held: Vec<Option<Range<usize>>> = vec![None; p];
        held[0] = Some(0..p);
        let steps: Vec<Vec<Step>> = (0..p).map(|v| scatter_steps(&s, v)).collect();
        run_steps(p, &steps, (0..q).rev(), |from, to, blocks| {
            let range = held[from].clone().expect("a sender holds blocks");
            assert!(range.start == from && blocks.start > from && blocks.end == range.end);
            assert!(held[to].is_none(), "p {p}: received twice");
            held[from] = Some(from..blocks.start);
            held[to] = Some(blocks.clone());
        });
        for (v, range) in held.into_iter().enumerate() {
            assert_eq!(range, Some(v..v + 1), "p {p}");
        }

        let mut held: Vec<Option<Range<usize>>> = (0..p).map(|v| Some(v..v + 1)).collect();
        let steps: Vec<Vec<Step>> = (0..p).map(|v| gather_steps(&s, v)).collect();
        run_steps(p, &steps, 0..q, |from, to, blocks| {
            assert_eq!(
                held[from].as_ref(),
                Some(blocks),
                "p {p}: sends what it holds"
            );
            let mine = held[to].as_mut().expect("a receiver is still in");
            assert_eq!(mine.end, blocks.start, "p {p}: appended in order");
            mine.end = blocks.end;
            held[from] = None;
        });
        assert_eq!(held[0], Some(0..p), "p {p}");
        assert!(
            held[1..].iter().all(Option::is_none),
            "p {p}: a block stayed behind"
        );
    }

    #[test]
    fn scatter_and_gather_move_every_block() {
        for_all_p(600, simulate_scatter_gather);
    }

    /// The n-block broadcast for n = 1..=40: every process receives each
    /// block exactly once from a process that already held it, and ends
    /// with all n in n − 1 + q rounds.
    fn simulate_nblock(p: usize) {
        let schedules = BlockSchedule::all(p);
        let s = skips(p);
        let q = s.len() - 1;
        if p <= 48 {
            for (v, schedule) in schedules.iter().enumerate() {
                assert_eq!(&BlockSchedule::new(p, v), schedule, "p {p}");
            }
        }
        for (v, schedule) in schedules.iter().enumerate() {
            // Sends are exactly the receivers' receives; the root receives
            // nothing, so nobody sends to it.
            for k in 0..q {
                assert_eq!(schedule.send()[k], schedules[(v + s[k]) % p].recv()[k]);
            }
        }
        // In round k the processes fall into classes by their scheduled
        // block; a class moves one block from its senders to its receivers,
        // so the simulation works on sets of processes as bit sets.
        let words = p.div_ceil(64);
        #[derive(Clone)]
        struct Class {
            scheduled: isize,
            senders: Vec<u64>,
            receivers: Vec<u64>,
        }
        let mut classes: Vec<Vec<Class>> = vec![Vec::new(); q];
        for (k, classes) in classes.iter_mut().enumerate() {
            for (v, schedule) in schedules.iter().enumerate().skip(1) {
                let scheduled = schedule.recv()[k].expect("every non-root receives");
                let at = match classes.iter().position(|c| c.scheduled == scheduled) {
                    Some(at) => at,
                    None => {
                        classes.push(Class {
                            scheduled,
                            senders: vec![0; words],
                            receivers: vec![0; words],
                        });
                        classes.len() - 1
                    }
                };
                let from = (v + p - s[k]) % p;
                classes[at].senders[from / 64] |= 1 << (from % 64);
                classes[at].receivers[v / 64] |= 1 << (v % 64);
            }
        }
        let mut everyone = vec![u64::MAX; words];
        everyone[words - 1] = u64::MAX >> (words * 64 - p);
        // holders[b]: the processes holding block b.
        let mut holders: Vec<Vec<u64>> = Vec::new();
        for n in 1..=40usize {
            holders.clear();
            holders.resize(n, vec![0; words]);
            for set in &mut holders {
                set[0] = 1; // the root
            }
            let rounds = schedules[0].rounds(n);
            assert_eq!(rounds, if p == 1 { 0 } else { n - 1 + q });
            for j in 0..rounds {
                let (k, offset) = nblock_position(q, j, n);
                let moves = || {
                    classes[k].iter().filter_map(move |c| {
                        nblock_block(Some(c.scheduled), offset, n)
                            .map(|b| (b, &c.senders, &c.receivers))
                    })
                };
                // All checks against the holdings before the round.
                for (b, senders, receivers) in moves() {
                    for ((&from, &to), &held) in senders.iter().zip(receivers).zip(&holders[b]) {
                        assert!(from & !held == 0, "p {p} n {n} round {j}: sent unheld {b}");
                        assert!(to & held == 0, "p {p} n {n} round {j}: {b} received twice");
                    }
                }
                for (b, _, receivers) in moves() {
                    for (held, &to) in holders[b].iter_mut().zip(receivers) {
                        *held |= to;
                    }
                }
            }
            for (b, set) in holders.iter().enumerate() {
                assert_eq!(set, &everyone, "p {p} n {n}: block {b} missing");
            }
        }
    }

    #[test]
    fn nblock_broadcast_is_round_optimal_and_complete() {
        for_all_p(600, simulate_nblock);
    }

    #[test]
    fn skips_halve_from_p_down_to_one() {
        for p in 1..=3000usize {
            let s = skips(p);
            assert_eq!((s[0], *s.last().unwrap()), (1, p));
            for pair in s.windows(2) {
                assert!(pair[0] < pair[1], "p {p}: {s:?}");
                assert_eq!(pair[0], pair[1].div_ceil(2), "p {p}");
            }
        }
    }

    /// Every relative rank is a sum of distinct skips below p, taken
    /// greedily from the largest; its baseblock is the smallest one taken.
    #[test]
    fn baseblocks_end_the_greedy_sum_of_skips() {
        for p in 1..=400usize {
            let s = skips(p);
            let q = s.len() - 1;
            assert_eq!(baseblock(&s, 0), q, "the root");
            for v in 1..p {
                let (mut rest, mut smallest) = (v, q);
                for k in (0..q).rev() {
                    if s[k] <= rest {
                        rest -= s[k];
                        smallest = k;
                    }
                }
                assert_eq!(rest, 0, "p {p}: {v} is no sum of skips");
                assert_eq!(baseblock(&s, v), smallest, "p {p}, v {v}");
            }
        }
    }

    /// The scatter steps of every process: at most one receive, first, of
    /// its own range; then sends in strictly decreasing rounds of ever
    /// smaller upper parts of that range, to their first rank.
    fn scatter_steps_are_well_formed(p: usize) {
        let s = skips(p);
        for v in 0..p {
            let steps = scatter_steps(&s, v);
            let mut hi = p;
            for (i, step) in steps.iter().enumerate() {
                if i > 0 {
                    assert!(step.round < steps[i - 1].round, "p {p}, v {v}");
                }
                match &step.transfer {
                    Transfer::Recv { from, blocks } => {
                        assert!(i == 0 && v > 0, "p {p}, v {v}: a late receive");
                        assert_eq!(blocks.start, v);
                        assert_eq!(v - from, s[step.round], "p {p}, v {v}");
                        hi = blocks.end;
                    }
                    Transfer::Send { to, blocks } => {
                        assert_eq!(*to, v + s[step.round], "p {p}, v {v}");
                        assert_eq!((blocks.start, blocks.end), (*to, hi));
                        hi = blocks.start;
                    }
                }
            }
            // What stays is the process's own block.
            assert_eq!(hi, v + 1, "p {p}, v {v}");
            assert_eq!(steps.is_empty(), p == 1);
        }
    }

    #[test]
    fn scatter_steps_receive_once_then_halve() {
        for_all_p(300, scatter_steps_are_well_formed);
    }

    /// The round plans `BcastNBlock` runs, for every process and several
    /// n: in each round every receive meets the matching send of the
    /// process `s_k` behind, which holds the block, and every non-root
    /// receives each block exactly once.
    fn simulate_plans(p: usize) {
        let s = skips(p);
        let q = s.len() - 1;
        let schedules = BlockSchedule::all(p);
        for n in [1, 2, 3, q + 1, 2 * q + 3, 17] {
            let plans: Vec<Vec<BlockRound>> = schedules.iter().map(|b| b.plan(n)).collect();
            let rounds = if p == 1 { 0 } else { n - 1 + q };
            assert!(plans.iter().all(|plan| plan.len() == rounds), "p {p}");
            let mut held = vec![vec![false; n]; p];
            held[0] = vec![true; n];
            for j in 0..rounds {
                let round: Vec<BlockRound> = plans.iter().map(|plan| plan[j]).collect();
                let before = held.clone();
                for (v, &BlockRound { k, send, recv }) in round.iter().enumerate() {
                    assert_eq!(k, round[0].k, "p {p} n {n}: one skip a round");
                    if let Some(b) = send {
                        assert!(before[v][b], "p {p} n {n}: {v} sends unheld {b}");
                        assert_eq!(round[(v + s[k]) % p].recv, Some(b));
                    }
                    if let Some(b) = recv {
                        assert!(v > 0, "p {p} n {n}: the root receives");
                        assert_eq!(round[(v + p - s[k]) % p].send, Some(b));
                        assert!(!held[v][b], "p {p} n {n}: {v} receives {b} twice");
                        held[v][b] = true;
                    }
                }
            }
            for (v, blocks) in held.iter().enumerate() {
                assert!(blocks.iter().all(|&h| h), "p {p} n {n}: {v} lacks a block");
            }
        }
    }

    #[test]
    fn nblock_plans_deliver_every_block_once() {
        for_all_p(200, simulate_plans);
    }
}

/// Checks the periodic schedules beyond the unit tests' range; run with
/// `cargo test --release -p algorithms -- --ignored`.
#[cfg(test)]
mod large {
    use super::*;

    /// Every non-root receives each block residue once a phase, and sends
    /// in round k only a block it received before round k (earlier in the
    /// phase, or in an earlier phase).
    fn periodic_schedule_valid(p: usize) {
        let schedules = BlockSchedule::all(p);
        let q = skips(p).len() - 1;
        let mut received_at = vec![(0usize, 0isize); q];
        for (v, schedule) in schedules.iter().enumerate().skip(1) {
            let mut seen = vec![false; q];
            for (k, block) in schedule.recv().iter().enumerate() {
                let block = block.expect("non-roots receive");
                let residue = block.rem_euclid(q as isize) as usize;
                assert!(
                    !seen[residue],
                    "p {p}: {v} receives residue {residue} twice"
                );
                seen[residue] = true;
                received_at[residue] = (k, block);
            }
            for (k, block) in schedule.send().iter().enumerate() {
                let Some(block) = *block else { continue };
                let (when, which) = received_at[block.rem_euclid(q as isize) as usize];
                let held = which > block || (which == block && when < k);
                assert!(
                    held,
                    "p {p}: {v} sends {block} in round {k} before it has it"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "minutes in debug; CI runs it in release")]
    fn nblock_schedules_hold_for_large_p() {
        let mut ps: Vec<usize> = (2..=4096).collect();
        for e in 12..=20 {
            ps.extend([
                (1 << e) - 1,
                1 << e,
                (1 << e) + 1,
                3 << (e - 1),
                (5 << (e - 2)) + 1,
            ]);
        }
        std::thread::scope(|scope| {
            for chunk in ps.chunks(ps.len().div_ceil(2)) {
                scope.spawn(move || chunk.iter().for_each(|&p| periodic_schedule_valid(p)));
            }
        });
    }
}
