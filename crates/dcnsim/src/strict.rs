//! A strict view of a JSON value for deserializing scenarios.
//!
//! serde's derived structs also accept a sequence (fields by position), so `run = []` would
//! become the default `[run]` table and `sizes = [1000]` a fixed size. [`Strict`] deserializes
//! like `serde_json::Value` except that a struct must be a table, an integer field must be a
//! whole number in range, and its type errors are worded for someone who wrote TOML or a
//! Python dict (`expected a whole number from 0 to 255, got 1e30`), not in serde's words.

use serde::de::{self, DeserializeSeed, Error as _, IntoDeserializer, Visitor};
use serde_json::{Error, Number, Value};

/// A JSON value deserialized strictly (see the module docs).
pub struct Strict<'a>(pub &'a Value);

/// How a JSON value is described in messages.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {}", num_text(n)),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
    }
}

fn num_text(n: &Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && (f.abs() >= 1e16 || (f != 0.0 && f.abs() < 1e-4)) => {
            format!("{f:e}")
        }
        _ => n.to_string(),
    }
}

impl<'a> Strict<'a> {
    fn unsigned(&self, max: u64) -> Result<u64, Error> {
        let bad = |got: String| {
            Error::custom(format!(
                "expected a whole number from 0 to {max}, got {got}"
            ))
        };
        match self.0 {
            Value::Number(n) => match n.as_u64() {
                Some(v) if v <= max => Ok(v),
                _ => Err(bad(num_text(n))),
            },
            other => Err(bad(describe(other))),
        }
    }
    fn signed(&self, min: i64, max: i64) -> Result<i64, Error> {
        let bad = |got: String| {
            Error::custom(format!(
                "expected a whole number from {min} to {max}, got {got}"
            ))
        };
        match self.0 {
            Value::Number(n) => match n.as_i64() {
                Some(v) if (min..=max).contains(&v) => Ok(v),
                _ => Err(bad(num_text(n))),
            },
            other => Err(bad(describe(other))),
        }
    }
}

macro_rules! unsigned {
    ($name:ident, $visit:ident, $t:ty) => {
        fn $name<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            v.$visit(self.unsigned(<$t>::MAX as u64)? as $t)
        }
    };
}
macro_rules! signed {
    ($name:ident, $visit:ident, $t:ty) => {
        fn $name<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            v.$visit(self.signed(<$t>::MIN as i64, <$t>::MAX as i64)? as $t)
        }
    };
}

impl<'de, 'a> de::Deserializer<'de> for Strict<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    v.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    v.visit_i64(i)
                } else {
                    v.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => v.visit_str(s),
            Value::Array(a) => v.visit_seq(Seq(a.iter())),
            Value::Object(m) => v.visit_map(Map {
                it: m.iter(),
                value: None,
            }),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Bool(b) => v.visit_bool(*b),
            other => Err(Error::custom(format!(
                "expected true or false, got {}",
                describe(other)
            ))),
        }
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Number(n) => v.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            other => Err(Error::custom(format!(
                "expected a number, got {}",
                describe(other)
            ))),
        }
    }
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_f64(v)
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => v.visit_str(s),
            other => Err(Error::custom(format!(
                "expected a string, got {}",
                describe(other)
            ))),
        }
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }

    unsigned!(deserialize_u8, visit_u8, u8);
    unsigned!(deserialize_u16, visit_u16, u16);
    unsigned!(deserialize_u32, visit_u32, u32);
    unsigned!(deserialize_u64, visit_u64, u64);
    signed!(deserialize_i8, visit_i8, i8);
    signed!(deserialize_i16, visit_i16, i16);
    signed!(deserialize_i32, visit_i32, i32);
    signed!(deserialize_i64, visit_i64, i64);

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(a) => v.visit_seq(Seq(a.iter())),
            other => Err(Error::custom(format!(
                "expected a list, got {}",
                describe(other)
            ))),
        }
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(a) if a.len() == len => v.visit_seq(Seq(a.iter())),
            other => Err(Error::custom(format!(
                "expected a list of {len} values, got {}",
                match other {
                    Value::Array(a) => format!("a list of {}", a.len()),
                    o => describe(o),
                }
            ))),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(m) => v.visit_map(Map {
                it: m.iter(),
                value: None,
            }),
            other => Err(Error::custom(format!(
                "expected a table, got {}",
                describe(other)
            ))),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        // The point of this type: a table, never a list read by position.
        self.deserialize_map(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => {
                if variants.contains(&s.as_str()) {
                    v.visit_enum(s.as_str().into_deserializer())
                } else {
                    Err(Error::custom(format!(
                        "unknown value {s:?}; expected one of {}",
                        variants.join(", ")
                    )))
                }
            }
            other => Err(Error::custom(format!(
                "expected one of {} (a string), got {}",
                variants.join(", "),
                describe(other)
            ))),
        }
    }

    serde::forward_to_deserialize_any! {
        char bytes byte_buf unit unit_struct tuple_struct identifier ignored_any i128 u128
    }
}

struct Seq<'a>(std::slice::Iter<'a, Value>);

impl<'de, 'a> de::SeqAccess<'de> for Seq<'a> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.0.next() {
            Some(v) => seed.deserialize(Strict(v)).map(Some),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Map<'a> {
    it: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
}

impl<'de, 'a> de::MapAccess<'de> for Map<'a> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.it.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(k.as_str().into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let v = self
            .value
            .take()
            .ok_or_else(|| Error::custom("value without a key"))?;
        seed.deserialize(Strict(v))
    }
}

/// Deserializes `T` strictly from `v`, returning the key path of the first error.
pub fn from_value<T: de::DeserializeOwned>(v: &Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(Strict(v)).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (path, e.into_inner().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq, Default)]
    #[serde(default, deny_unknown_fields)]
    struct T {
        a: u8,
        b: Option<u32>,
        c: f64,
    }

    fn p(s: &str) -> Result<T, (String, String)> {
        from_value(&serde_json::from_str::<Value>(s).unwrap())
    }

    #[test]
    fn tables_only_and_plain_words() {
        assert_eq!(p(r#"{"a": 3}"#).unwrap().a, 3);
        let e = p("[]").unwrap_err();
        assert!(e.1.contains("expected a table, got a list"), "{e:?}");
        let e = p(r#"{"a": 300}"#).unwrap_err();
        assert_eq!(e.0, "a");
        assert_eq!(e.1, "expected a whole number from 0 to 255, got 300");
        let e = p(r#"{"b": 1e30}"#).unwrap_err();
        assert_eq!(
            e.1,
            "expected a whole number from 0 to 4294967295, got 1e30"
        );
        let e = p(r#"{"b": -1}"#).unwrap_err();
        assert!(e.1.contains("got -1"), "{e:?}");
        let e = p(r#"{"c": "x"}"#).unwrap_err();
        assert_eq!(e.1, "expected a number, got the string \"x\"");
        assert!(p(r#"{"d": 1}"#).unwrap_err().1.contains("unknown field"));
    }
}
