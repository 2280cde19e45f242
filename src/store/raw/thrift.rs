//! The Thrift compact protocol, as far as a Parquet file's page headers
//! and footer need it: structs of integers, strings, lists and structs.

/// Field and element types of the compact protocol.
const I32: u8 = 5;
const I64: u8 = 6;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const STRUCT: u8 = 12;

/// A Thrift struct (and the structs and lists in it) being encoded.
pub struct Compact {
    pub bytes: Vec<u8>,
    /// The last field id written in each struct that is open: the compact
    /// protocol writes a field id as the difference from the last.
    last: Vec<i16>,
}

impl Compact {
    /// A top-level struct, open.
    pub fn new() -> Compact {
        Compact {
            bytes: Vec::with_capacity(256),
            last: vec![0],
        }
    }

    /// The encoded struct, closed.
    pub fn finish(mut self) -> Vec<u8> {
        self.end();
        self.bytes
    }

    fn field(&mut self, id: i16, kind: u8) {
        let last = self.last.last_mut().expect("a struct is open");
        let delta = id - std::mem::replace(last, id);
        if (1..=15).contains(&delta) {
            self.bytes.push(((delta as u8) << 4) | kind);
        } else {
            self.bytes.push(kind);
            self.varint(zigzag(i64::from(id)));
        }
    }

    fn varint(&mut self, value: u64) {
        varint(value, &mut self.bytes);
    }

    pub fn i32(&mut self, id: i16, value: i32) {
        self.field(id, I32);
        self.varint(zigzag(i64::from(value)));
    }

    pub fn i64(&mut self, id: i16, value: i64) {
        self.field(id, I64);
        self.varint(zigzag(value));
    }

    pub fn string(&mut self, id: i16, value: &str) {
        self.field(id, BINARY);
        self.string_element(value);
    }

    /// A struct field; its fields follow, then [`Compact::end`].
    pub fn begin(&mut self, id: i16) {
        self.field(id, STRUCT);
        self.last.push(0);
    }

    /// A struct element of a list; its fields follow, then [`Compact::end`].
    pub fn begin_element(&mut self) {
        self.last.push(0);
    }

    /// Closes the innermost open struct.
    pub fn end(&mut self) {
        self.bytes.push(0);
        self.last.pop();
    }

    /// A list field of `len` elements of `kind`, which follow.
    fn list(&mut self, id: i16, kind: u8, len: usize) {
        self.field(id, LIST);
        if len < 15 {
            self.bytes.push(((len as u8) << 4) | kind);
        } else {
            self.bytes.push(0xf0 | kind);
            self.varint(len as u64);
        }
    }

    pub fn i32_list(&mut self, id: i16, values: &[i32]) {
        self.list(id, I32, values.len());
        for &v in values {
            self.varint(zigzag(i64::from(v)));
        }
    }

    pub fn string_list(&mut self, id: i16, values: &[&str]) {
        self.list(id, BINARY, values.len());
        for v in values {
            self.string_element(v);
        }
    }

    /// A list field of `len` structs, each written between
    /// [`Compact::begin_element`] and [`Compact::end`].
    pub fn struct_list(&mut self, id: i16, len: usize) {
        self.list(id, STRUCT, len);
    }

    fn string_element(&mut self, value: &str) {
        self.varint(value.len() as u64);
        self.bytes.extend_from_slice(value.as_bytes());
    }
}

/// `value` as a ULEB128 varint.
pub fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// `value` zigzag-encoded: small magnitudes, either sign, stay small.
pub fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes from the compact protocol's specification: field headers as
    /// deltas, zigzag varints, short and long lists, nested structs.
    #[test]
    fn encodes_as_the_compact_protocol_specifies() {
        let mut c = Compact::new();
        c.i32(1, -1);
        c.i64(3, 300);
        c.string(20, "ab");
        c.begin(21);
        c.i32(1, 2);
        c.end();
        c.i32_list(22, &[1; 15]);
        let bytes = c.finish();
        let mut expected = vec![0x15, 0x01, 0x26, 0xd8, 0x04, 0x08, 0x28, 2, b'a', b'b'];
        expected.extend([0x1c, 0x15, 0x04, 0x00]);
        expected.extend([0x19, 0xf5, 15]);
        expected.extend([0x02; 15]);
        expected.push(0);
        assert_eq!(bytes, expected);
    }
}
