//! `raw/`: one Parquet file per case, `raw/case-00001.parquet` for the
//! case measured first, with one row group; pandas, polars, R (arrow) and
//! DuckDB read the directory as one table.
//!
//! The columns, in [`SCHEMA`]'s order, are those of `raw.csv` with the time
//! as `ps`, integer picoseconds (empty for a late start): `seconds` is `ps /
//! 1e12`. Integers, because the times are differences of MPI_Wtime values
//! whose last digits are floating-point noise, and a picosecond is a
//! thousandth of the finest timer.
//!
//! Written by pgcheck's own encoder, because rank 0 writes while every
//! other rank waits: a case of 30,000 observations takes the parquet
//! crate's writer 6–17 ms (it hashes every row's key values into its
//! dictionaries), where the keys here are one run per candidate and the
//! whole file takes 0.7–1 ms. The encodings are the plain
//! ones every reader knows:
//! - keys, `candidate` and `round`: a dictionary page, then the indices
//!   as runs (RLE_DICTIONARY), about nothing per row;
//! - `valid`: one bit per row (PLAIN);
//! - `ps`: its definition levels as runs, the times as the differences
//!   between neighbours bit-packed (DELTA_BINARY_PACKED), 2–3 bytes per
//!   observation.
//!
//! No compression codec: the encodings leave little to compress, and a
//! codec would cost rank 0 the time this format saves. Each file is
//! written under a hidden name (`.case-00001.parquet`, which readers skip)
//! and renamed, so that a killed run leaves whole files. It is read with
//! the parquet crate, an implementation independent of the encoder.

use super::thrift::{varint, zigzag, Compact};
use super::{rows, samples, RawRow, Row};
use crate::case::CaseKey;
use crate::case::{CaseData, Sample};
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use anyhow::{anyhow, Context};
use parquet::data_type::ByteArray;
use std::path::{Path, PathBuf};

/// The directory's name in a run's directory.
pub const DIR: &str = "raw";

const MAGIC: &[u8; 4] = b"PAR1";

/// Physical types.
const BOOLEAN: i32 = 0;
const INT32: i32 = 1;
const INT64: i32 = 2;
const BYTE_ARRAY: i32 = 6;

/// Encodings.
const PLAIN: i32 = 0;
const RLE: i32 = 3;
const DELTA_BINARY_PACKED: i32 = 5;
const RLE_DICTIONARY: i32 = 8;

/// Every column: its name, physical type, and whether it may be empty.
const SCHEMA: [(&str, i32, bool); 11] = [
    ("run", BYTE_ARRAY, false),
    ("collective", BYTE_ARRAY, false),
    ("size_bytes", INT64, false),
    ("count", INT64, false),
    ("datatype", BYTE_ARRAY, false),
    ("op", BYTE_ARRAY, false),
    ("root", INT64, false),
    ("candidate", BYTE_ARRAY, false),
    ("round", INT32, false),
    ("valid", BOOLEAN, false),
    ("ps", INT64, true),
];

/// The file of the case measured `index`-th, from 1.
fn file_name(index: usize) -> String {
    format!("case-{index:05}.parquet")
}

/// Writes the observations of `case`, measured `index`-th, to their own
/// file in `dir`; a case without observations has none.
pub fn write(dir: &Path, run: &str, index: usize, case: &CaseData) -> std::io::Result<()> {
    let Some(bytes) = encode(run, case) else {
        return Ok(());
    };
    let name = file_name(index);
    let hidden = dir.join(format!(".{name}"));
    std::fs::write(&hidden, bytes)?;
    std::fs::rename(&hidden, dir.join(name))
}

/// Removes every case file in `dir` (whole or not), so that it holds one
/// run's observations.
pub fn clear(dir: &Path) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.trim_start_matches('.').starts_with("case-") && name.ends_with(".parquet") {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// The case files in `dir`, in the order the cases were measured.
pub fn files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or(".");
        name.ends_with(".parquet") && !name.starts_with('.')
    });
    // case-99999 before case-100000.
    files.sort_by_key(|path| (path.as_os_str().len(), path.clone()));
    Ok(files)
}

/// A whole Parquet file of `case`'s observations, None if it has none.
fn encode(run: &str, case: &CaseData) -> Option<Vec<u8>> {
    let measured: Vec<&Sample> = samples(case)
        .filter(|s| !s.rounds.is_empty() || !s.invalid_rounds.is_empty())
        .collect();
    let lengths: Vec<u64> = measured
        .iter()
        .map(|s| (s.rounds.len() + s.invalid_rounds.len()) as u64)
        .collect();
    let n: u64 = lengths.iter().sum();
    if n == 0 {
        return None;
    }
    let k = &case.key;
    let mut file = Vec::with_capacity(n as usize * 3 + 4096);
    file.extend_from_slice(MAGIC);
    let every_row = [(0, n)];
    let mut chunks = Vec::with_capacity(SCHEMA.len());
    let mut constant = |file: &mut Vec<u8>, value: Plain| {
        chunks.push(dictionary_chunk(file, &[value], every_row.iter().copied()))
    };
    constant(&mut file, Plain::Bytes(run));
    constant(&mut file, Plain::Bytes(&k.operation.name()));
    constant(&mut file, Plain::Int64(k.size_bytes as i64));
    constant(&mut file, Plain::Int64(k.count as i64));
    constant(&mut file, Plain::Bytes(k.datatype.name()));
    constant(&mut file, Plain::Bytes(k.op.name()));
    constant(&mut file, Plain::Int64(k.root as i64));
    let names: Vec<Plain> = measured.iter().map(|s| Plain::Bytes(&s.name)).collect();
    let candidates = lengths.iter().enumerate().map(|(i, &len)| (i as u64, len));
    chunks.push(dictionary_chunk(&mut file, &names, candidates));
    chunks.push(round_chunk(&mut file, &measured));
    chunks.push(valid_chunk(&mut file, &measured, n));
    chunks.push(time_chunk(&mut file, &measured, n));
    let footer = footer(&chunks, n);
    file.extend_from_slice(&footer);
    file.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    file.extend_from_slice(MAGIC);
    Some(file)
}

/// A value as PLAIN encodes it.
enum Plain<'a> {
    Bytes(&'a str),
    Int64(i64),
    Int32(i32),
}

impl Plain<'_> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Plain::Bytes(text) => {
                out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                out.extend_from_slice(text.as_bytes());
            }
            Plain::Int64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Plain::Int32(v) => out.extend_from_slice(&v.to_le_bytes()),
        }
    }
}

/// Where a column chunk lies in the file and what it holds.
struct Chunk {
    start: u64,
    dictionary_page: Option<u64>,
    data_page: u64,
    bytes: u64,
    values: u64,
    encodings: &'static [i32],
}

/// A column of `dictionary`'s values, row after row the `(index, rows)`
/// runs: a dictionary page and a data page of RLE_DICTIONARY indices.
fn dictionary_chunk(
    file: &mut Vec<u8>,
    dictionary: &[Plain],
    runs: impl Iterator<Item = (u64, u64)>,
) -> Chunk {
    let start = file.len() as u64;
    let mut values = Vec::new();
    for v in dictionary {
        v.encode(&mut values);
    }
    let mut header = Compact::new();
    header.i32(1, 2); // DICTIONARY_PAGE
    header.i32(2, values.len() as i32);
    header.i32(3, values.len() as i32);
    header.begin(7);
    header.i32(1, dictionary.len() as i32);
    header.i32(2, PLAIN);
    header.end();
    file.extend_from_slice(&header.finish());
    file.extend_from_slice(&values);
    let data_page = file.len() as u64;
    // At least one bit: some readers reject a width of 0.
    let width = bits(dictionary.len().saturating_sub(1) as u64).max(1);
    let mut indices = vec![width];
    let mut rle = Rle::new(width);
    let mut rows = 0;
    for (index, len) in runs {
        rle.push(index, len, &mut indices);
        rows += len;
    }
    rle.finish(&mut indices);
    data_page_to(file, &indices, rows, RLE_DICTIONARY);
    Chunk {
        start,
        dictionary_page: Some(start),
        data_page,
        bytes: file.len() as u64 - start,
        values: rows,
        encodings: &[PLAIN, RLE, RLE_DICTIONARY],
    }
}

/// `round`: a dictionary of the rounds there are, in order, and each
/// row's index, in runs (a round's observations are consecutive).
fn round_chunk(file: &mut Vec<u8>, samples: &[&Sample]) -> Chunk {
    let mut runs: Vec<(u32, u64)> = Vec::new();
    for (round, _) in samples.iter().flat_map(|s| rows(s)) {
        match runs.last_mut() {
            Some((last, len)) if *last == round => *len += 1,
            _ => runs.push((round, 1)),
        }
    }
    let mut rounds: Vec<u32> = runs.iter().map(|&(round, _)| round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    let dictionary: Vec<Plain> = rounds.iter().map(|&r| Plain::Int32(r as i32)).collect();
    let index = |round: u32| {
        rounds
            .binary_search(&round)
            .expect("a round of the dictionary")
    };
    dictionary_chunk(
        file,
        &dictionary,
        runs.iter().map(|&(round, len)| (index(round) as u64, len)),
    )
}

/// `valid`: one bit per row, the first row in the lowest bit.
fn valid_chunk(file: &mut Vec<u8>, samples: &[&Sample], n: u64) -> Chunk {
    let mut bits = vec![0u8; n.div_ceil(8) as usize];
    let valid = samples
        .iter()
        .flat_map(|s| rows(s).map(|(_, t)| t.is_some()));
    for (i, _) in valid.enumerate().filter(|&(_, v)| v) {
        bits[i / 8] |= 1 << (i % 8);
    }
    data_chunk(file, &bits, n, PLAIN, &[PLAIN])
}

/// `ps`: definition levels (1 for a time, 0 for a late start) as runs,
/// then the times, DELTA_BINARY_PACKED.
fn time_chunk(file: &mut Vec<u8>, samples: &[&Sample], n: u64) -> Chunk {
    let mut levels = Vec::new();
    let mut rle = Rle::new(1);
    for s in samples {
        rle.push(1, s.seconds.len() as u64, &mut levels);
        rle.push(0, s.invalid_rounds.len() as u64, &mut levels);
    }
    rle.finish(&mut levels);
    let mut data = Vec::with_capacity(levels.len() + 4 + n as usize * 3);
    data.extend_from_slice(&(levels.len() as u32).to_le_bytes());
    data.extend_from_slice(&levels);
    let times = samples
        .iter()
        .flat_map(|s| s.seconds.iter().map(|&seconds| picoseconds(seconds)));
    delta_binary_packed(times, &mut data);
    data_chunk(
        file,
        &data,
        n,
        DELTA_BINARY_PACKED,
        &[RLE, DELTA_BINARY_PACKED],
    )
}

/// A column of one data page, `data` encoded as `encoding`, without a
/// dictionary (`encodings`: every encoding the chunk uses, levels included).
fn data_chunk(
    file: &mut Vec<u8>,
    data: &[u8],
    n: u64,
    encoding: i32,
    encodings: &'static [i32],
) -> Chunk {
    let start = file.len() as u64;
    data_page_to(file, data, n, encoding);
    Chunk {
        start,
        dictionary_page: None,
        data_page: start,
        bytes: file.len() as u64 - start,
        values: n,
        encodings,
    }
}

/// `seconds` in whole picoseconds.
pub fn picoseconds(seconds: f64) -> i64 {
    (seconds * 1e12).round() as i64
}

/// The seconds of `ps` picoseconds: one division, rounded once.
pub fn seconds(ps: i64) -> f64 {
    ps as f64 / 1e12
}

/// A data page (version 1) of `values` rows, encoded as `encoding`, with
/// its header, appended to `file`.
fn data_page_to(file: &mut Vec<u8>, data: &[u8], values: u64, encoding: i32) {
    let mut header = Compact::new();
    header.i32(1, 0); // DATA_PAGE
    header.i32(2, data.len() as i32);
    header.i32(3, data.len() as i32);
    header.begin(5);
    header.i32(1, values as i32);
    header.i32(2, encoding);
    header.i32(3, RLE);
    header.i32(4, RLE);
    header.end();
    file.extend_from_slice(&header.finish());
    file.extend_from_slice(data);
}

/// The file's metadata: the schema, one row group of `chunks`.
fn footer(chunks: &[Chunk], rows: u64) -> Vec<u8> {
    let mut meta = Compact::new();
    meta.i32(1, 2);
    meta.struct_list(2, SCHEMA.len() + 1);
    meta.begin_element();
    meta.string(4, "schema");
    meta.i32(5, SCHEMA.len() as i32);
    meta.end();
    for (name, physical, optional) in SCHEMA {
        meta.begin_element();
        meta.i32(1, physical);
        meta.i32(3, i32::from(optional));
        meta.string(4, name);
        if physical == BYTE_ARRAY {
            meta.i32(6, 0); // UTF8
            meta.begin(10); // LogicalType
            meta.begin(1); // STRING
            meta.end();
            meta.end();
        }
        meta.end();
    }
    meta.i64(3, rows as i64);
    meta.struct_list(4, 1);
    meta.begin_element();
    meta.struct_list(1, chunks.len());
    for (chunk, (name, physical, _)) in chunks.iter().zip(SCHEMA) {
        meta.begin_element();
        meta.i64(2, chunk.start as i64);
        meta.begin(3);
        meta.i32(1, physical);
        meta.i32_list(2, chunk.encodings);
        meta.string_list(3, &[name]);
        meta.i32(4, 0); // UNCOMPRESSED
        meta.i64(5, chunk.values as i64);
        meta.i64(6, chunk.bytes as i64);
        meta.i64(7, chunk.bytes as i64);
        meta.i64(9, chunk.data_page as i64);
        if let Some(offset) = chunk.dictionary_page {
            meta.i64(11, offset as i64);
        }
        meta.end();
        meta.end();
    }
    let bytes: u64 = chunks.iter().map(|c| c.bytes).sum();
    meta.i64(2, bytes as i64);
    meta.i64(3, rows as i64);
    meta.i64(5, chunks[0].start as i64);
    meta.i64(6, bytes as i64);
    meta.end();
    meta.string(6, concat!("pgcheck version ", env!("CARGO_PKG_VERSION")));
    meta.finish()
}

/// Bits needed for `value`.
fn bits(value: u64) -> u8 {
    (64 - value.leading_zeros()) as u8
}

/// The RLE half of Parquet's RLE/bit-packing hybrid: runs of one value,
/// neighbouring runs of the same value joined.
struct Rle {
    width: u8,
    value: u64,
    len: u64,
}

impl Rle {
    fn new(width: u8) -> Rle {
        Rle {
            width,
            value: 0,
            len: 0,
        }
    }

    fn push(&mut self, value: u64, len: u64, out: &mut Vec<u8>) {
        if len == 0 {
            return;
        }
        if value != self.value {
            self.finish(out);
            self.value = value;
        }
        self.len += len;
    }

    fn finish(&mut self, out: &mut Vec<u8>) {
        if self.len > 0 {
            varint(self.len << 1, out);
            let bytes = self.value.to_le_bytes();
            out.extend_from_slice(&bytes[..usize::from(self.width).div_ceil(8)]);
            self.len = 0;
        }
    }
}

/// DELTA_BINARY_PACKED: the first value, then blocks of 128 differences,
/// each as its least difference and four miniblocks of 32 bit-packed
/// excesses over it, each miniblock as wide as its largest excess.
fn delta_binary_packed(values: impl Iterator<Item = i64>, out: &mut Vec<u8>) {
    const BLOCK: usize = 128;
    const MINIBLOCKS: usize = 4;
    const MINIBLOCK: usize = BLOCK / MINIBLOCKS;
    let mut values = values;
    let first = values.next();
    let mut deltas = Vec::new();
    if let Some(mut last) = first {
        for v in values {
            deltas.push(v.wrapping_sub(last));
            last = v;
        }
    }
    varint(BLOCK as u64, out);
    varint(MINIBLOCKS as u64, out);
    varint(first.map_or(0, |_| deltas.len() as u64 + 1), out);
    varint(zigzag(first.unwrap_or(0)), out);
    for block in deltas.chunks(BLOCK) {
        let least = *block.iter().min().expect("a block is never empty");
        varint(zigzag(least), out);
        let widths_at = out.len();
        out.extend_from_slice(&[0; MINIBLOCKS]);
        for (m, mini) in block.chunks(MINIBLOCK).enumerate() {
            let mut excess = [0u64; MINIBLOCK];
            for (e, &d) in excess.iter_mut().zip(mini) {
                *e = d.wrapping_sub(least) as u64;
            }
            let width = excess.iter().map(|&e| bits(e)).max().unwrap_or(0);
            out[widths_at + m] = width;
            pack(&excess, width, out);
        }
    }
}

/// `values` bit-packed, `width` bits each, the first in the lowest bits.
fn pack(values: &[u64], width: u8, out: &mut Vec<u8>) {
    let width = u32::from(width);
    let mut buffer: u128 = 0;
    let mut held = 0u32;
    for &v in values {
        buffer |= u128::from(v) << held;
        held += width;
        while held >= 8 {
            out.push(buffer as u8);
            buffer >>= 8;
            held -= 8;
        }
    }
    if held > 0 {
        out.push(buffer as u8);
    }
}

/// Reads every case file in `dir`, row by row.
pub fn read(dir: &Path) -> anyhow::Result<Vec<RawRow>> {
    let mut rows = Vec::new();
    for path in files(dir)? {
        for group in read_file(&path).with_context(|| path.display().to_string())? {
            for row in group.rows() {
                rows.push(row?.to_raw_row());
            }
        }
    }
    Ok(rows)
}

/// A row group's columns as read; [`Columns::rows`] gives its rows.
pub struct Columns {
    run: Vec<ByteArray>,
    collective: Vec<ByteArray>,
    size_bytes: Vec<i64>,
    count: Vec<i64>,
    datatype: Vec<ByteArray>,
    op: Vec<ByteArray>,
    root: Vec<i64>,
    candidate: Vec<ByteArray>,
    round: Vec<i64>,
    valid: Vec<bool>,
    /// The times there are, and per row whether it has one.
    ps: Vec<i64>,
    present: Vec<bool>,
}

impl Columns {
    /// Every row, borrowing its text from the columns: dictionary-encoded
    /// text read into a string per row made `analyze` spend most of its
    /// time in the allocator.
    pub fn rows(&self) -> impl Iterator<Item = anyhow::Result<Row<'_>>> + '_ {
        let mut times = self.ps.iter();
        (0..self.run.len()).map(move |i| {
            let seconds = match self.present[i] {
                true => Some(seconds(
                    *times.next().ok_or_else(|| anyhow!("too few times"))?,
                )),
                false => None,
            };
            Ok(Row {
                run: self.run[i].as_utf8()?,
                key: CaseKey {
                    operation: named(self.collective[i].as_utf8()?, Operation::from_name)?,
                    size_bytes: u64::try_from(self.size_bytes[i])?,
                    count: usize::try_from(self.count[i])?,
                    datatype: named(self.datatype[i].as_utf8()?, Datatype::from_name)?,
                    op: named(self.op[i].as_utf8()?, Op::from_name)?,
                    root: usize::try_from(self.root[i])?,
                },
                candidate: self.candidate[i].as_utf8()?,
                round: u32::try_from(self.round[i])?,
                valid: self.valid[i],
                seconds,
            })
        })
    }
}

/// The row groups of the case file at `path`, column by column.
pub fn read_file(path: &Path) -> anyhow::Result<Vec<Columns>> {
    use parquet::file::reader::FileReader;
    let reader =
        parquet::file::serialized_reader::SerializedFileReader::new(std::fs::File::open(path)?)?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let column = |name: &str| {
        schema
            .columns()
            .iter()
            .position(|c| c.name() == name)
            .ok_or_else(|| anyhow!("no column `{name}`"))
    };
    let mut groups = Vec::new();
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g)?;
        let group = group.as_ref();
        let strings = |name| column(name).and_then(|c| strings(group, c));
        let integers = |name| column(name).and_then(|c| integers(group, c));
        let (ps, present) = integers("ps")?;
        let columns = Columns {
            run: strings("run")?,
            collective: strings("collective")?,
            size_bytes: integers("size_bytes")?.0,
            count: integers("count")?.0,
            datatype: strings("datatype")?,
            op: strings("op")?,
            root: integers("root")?.0,
            candidate: strings("candidate")?,
            round: integers("round")?.0,
            valid: booleans(group, column("valid")?)?,
            ps,
            present,
        };
        let n = columns.run.len();
        let lengths = [
            columns.collective.len(),
            columns.size_bytes.len(),
            columns.count.len(),
            columns.datatype.len(),
            columns.op.len(),
            columns.root.len(),
            columns.candidate.len(),
            columns.round.len(),
            columns.valid.len(),
            columns.present.len(),
        ];
        if lengths.iter().any(|&l| l != n) {
            return Err(anyhow!("row group {g}: columns of different lengths"));
        }
        groups.push(columns);
    }
    Ok(groups)
}

/// The value `name` names, through `from_name`.
fn named<T>(name: &str, from_name: fn(&str) -> Option<T>) -> anyhow::Result<T> {
    from_name(name).ok_or_else(|| anyhow!("unknown name `{name}`"))
}

type Group<'a> = &'a dyn parquet::file::reader::RowGroupReader;

/// Reads every record of a typed column `$reader` into `$values`, and
/// its definition levels into `$levels` when given (`Some`): 4096 records
/// at a time until none is left.
macro_rules! read_all {
    ($reader:expr, $levels:expr, $values:expr) => {{
        let mut reader = $reader;
        loop {
            let (records, _, _) = reader.read_records(4096, $levels, None, $values)?;
            if records == 0 {
                break;
            }
        }
    }};
}

fn strings(group: Group, column: usize) -> anyhow::Result<Vec<ByteArray>> {
    use parquet::column::reader::ColumnReader;
    let ColumnReader::ByteArrayColumnReader(reader) = group.get_column_reader(column)? else {
        return Err(anyhow!("column {column} is not text"));
    };
    let mut values = Vec::new();
    read_all!(reader, None, &mut values);
    Ok(values)
}

/// An integer column's values and, per row, whether it has one.
fn integers(group: Group, column: usize) -> anyhow::Result<(Vec<i64>, Vec<bool>)> {
    use parquet::column::reader::ColumnReader;
    let mut levels = Vec::new();
    let optional = group
        .metadata()
        .column(column)
        .column_descr()
        .max_def_level()
        > 0;
    let values = match group.get_column_reader(column)? {
        ColumnReader::Int64ColumnReader(reader) => {
            let mut values = Vec::new();
            read_all!(reader, optional.then_some(&mut levels), &mut values);
            values
        }
        ColumnReader::Int32ColumnReader(reader) => {
            let mut values = Vec::new();
            read_all!(reader, optional.then_some(&mut levels), &mut values);
            values.into_iter().map(i64::from).collect()
        }
        _ => return Err(anyhow!("column {column} is not integers")),
    };
    let present = match optional {
        true => levels.iter().map(|&l| l > 0).collect(),
        false => vec![true; values.len()],
    };
    Ok((values, present))
}

fn booleans(group: Group, column: usize) -> anyhow::Result<Vec<bool>> {
    use parquet::column::reader::ColumnReader;
    let ColumnReader::BoolColumnReader(reader) = group.get_column_reader(column)? else {
        return Err(anyhow!("column {column} is not booleans"));
    };
    let mut values = Vec::new();
    read_all!(reader, None, &mut values);
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{CaseKey, Smaller};

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("pgcheck-parquet-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn sample(name: &str, picoseconds: &[i64], rounds: &[u32], invalid: &[u32]) -> Sample {
        Sample {
            seconds: picoseconds.iter().map(|&ps| seconds(ps)).collect(),
            rounds: rounds.to_vec(),
            invalid_rounds: invalid.to_vec(),
            ..Sample::measured(name)
        }
    }

    /// What the encoder must get right, read back by the parquet crate:
    /// one observation; a candidate with late starts only; rounds out of
    /// order; times from 0 to a day, rising and falling by more than 2⁶²
    /// ps between neighbours (miniblocks 64 bits wide); blocks of 128 and
    /// a last miniblock cut short; more candidates than one byte of
    /// indices holds; the smaller size's sample.
    #[test]
    fn what_it_writes_the_parquet_crate_reads_back_row_for_row() {
        let dir = scratch("edges");
        let day = 86_400 * 1_000_000_000_000i64;
        let wide: Vec<i64> = (0..300)
            .map(|i| if i % 2 == 0 { 0 } else { day * 50_000 + i })
            .collect();
        let rising: Vec<i64> = (0..1_000).map(|i| 1_000_000 + 7 * i).collect();
        let mut measured = vec![
            sample("default", &[1_234_567], &[4], &[]),
            sample("late_only", &[], &[], &[2, 0, 2]),
            sample(
                "wide",
                &wide,
                &(0..300).map(|i| i % 7).collect::<Vec<_>>(),
                &[1],
            ),
            sample("rising", &rising, &vec![3; 1_000], &[]),
        ];
        measured.extend((0..300).map(|i| sample(&format!("c{i}"), &[i], &[0], &[])));
        let case = CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey {
                operation: crate::collective::Collective::ReduceScatterBlock.into(),
                size_bytes: 1 << 40,
                count: 3,
                datatype: Datatype::Int32,
                op: Op::Sum,
                root: 7,
            },
            samples: measured,
            smaller: Some(Smaller {
                size_bytes: 8,
                sample: sample("default@8B", &[5, 6], &[0, 1], &[1]),
            }),
        };
        write(&dir, "a run", 3, &case).unwrap();
        assert!(dir.join("case-00003.parquet").is_file());
        let back = read(&dir).unwrap();
        let expected: Vec<(String, u32, Option<i64>)> = samples(&case)
            .flat_map(|s| {
                rows(s).map(move |(round, t)| (s.name.clone(), round, t.map(picoseconds)))
            })
            .collect();
        let got: Vec<(String, u32, Option<i64>)> = back
            .iter()
            .map(|r| (r.candidate.clone(), r.round, r.seconds.map(picoseconds)))
            .collect();
        assert_eq!(got, expected);
        for r in &back {
            assert_eq!((r.run.as_str(), r.key()), ("a run", case.key.clone()));
            assert_eq!(r.valid, r.seconds.is_some());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_case_without_observations_has_no_file() {
        let dir = scratch("empty");
        let mut case = CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey {
                operation: crate::collective::Collective::Bcast.into(),
                size_bytes: 8,
                count: 8,
                datatype: Datatype::Byte,
                op: Op::Bor,
                root: 0,
            },
            samples: vec![Sample::measured("default")],
            smaller: None,
        };
        write(&dir, "r", 1, &case).unwrap();
        assert!(files(&dir).unwrap().is_empty());
        case.samples[0].invalid_rounds.push(0);
        write(&dir, "r", 2, &case).unwrap();
        let rows = read(&dir).unwrap();
        assert_eq!(
            (rows.len(), rows[0].valid, rows[0].seconds),
            (1, false, None)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_are_read_in_the_order_measured_and_cleared_with_partial_ones() {
        let dir = scratch("order");
        for name in [
            "case-100000.parquet",
            "case-99999.parquet",
            ".case-100001.parquet",
            "notes.txt",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let names: Vec<String> = files(&dir)
            .unwrap()
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["case-99999.parquet", "case-100000.parquet"]);
        clear(&dir).unwrap();
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["notes.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn picoseconds_drop_the_noise_of_clock_differences() {
        assert_eq!(picoseconds(6.339999999882551e-6), 6_340_000);
        assert_eq!(seconds(6_340_000), 6.34e-6);
        assert_eq!(seconds(1_222_500), 1.2225e-6);
    }
}
