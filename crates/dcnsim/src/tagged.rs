//! Deserialization of `kind`-tagged enums that keeps the key path of errors inside them.
//!
//! serde's derived internally tagged enums buffer their content, so an error deep inside
//! (`topology.link.rate`) would be reported at the enum (`topology`). Enums declared with
//! [`kind_enum!`](crate::kind_enum) instead read the `kind`, then deserialize the variant's
//! struct with `serde_path_to_error`, and pass the inner path up inside the message between
//! NUL markers; [`split_path`] turns those markers back into a full path.

use serde::de::DeserializeOwned;

/// Deserializes the variant struct `T` from the remaining map, encoding any error's inner path.
pub fn variant<T: DeserializeOwned>(
    map: serde_json::Map<String, serde_json::Value>,
) -> Result<T, String> {
    crate::strict::from_value(&serde_json::Value::Object(map))
        .map_err(|(path, msg)| format!("\0{path}\0{msg}"))
}

/// Moves the NUL-marked path segments at the start of `msg` onto `path`.
pub fn split_path(mut path: String, mut msg: String) -> (String, String) {
    while let Some(rest) = msg.strip_prefix('\0') {
        let Some(end) = rest.find('\0') else { break };
        let seg = &rest[..end];
        if !seg.is_empty() {
            if !path.is_empty() && !seg.starts_with('[') {
                path.push('.');
            }
            path.push_str(seg);
        }
        msg = rest[end + 1..].to_string();
    }
    (path, msg)
}

/// Declares the `Deserialize` impl of an enum whose variants are selected by a `kind` key:
/// `kind_enum!(Enum { "name" => Variant(Struct), "unit" => Unit })`.
#[macro_export]
macro_rules! kind_enum {
    ($enum:ident { $($tag:literal => $variant:ident $(($ty:ty))?),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                let v = serde_json::Value::deserialize(d)?;
                let serde_json::Value::Object(mut map) = v else {
                    return Err(D::Error::custom(concat!("expected a table with a `kind` key (one of ", $("`", $tag, "` ",)* ")")));
                };
                let kind = match map.remove("kind") {
                    Some(serde_json::Value::String(s)) => s,
                    Some(other) => return Err(D::Error::custom(format!("\0kind\0expected a string, got {}", $crate::strict::describe(&other)))),
                    None => return Err(D::Error::custom(concat!("missing field `kind`; expected one of ", $("`", $tag, "` ",)*))),
                };
                match kind.as_str() {
                    $($tag => $crate::kind_enum!(@arm $enum, $variant, map $(, $ty)?),)*
                    other => Err(D::Error::custom(format!(concat!("\0kind\0unknown kind {:?}, expected one of ", $("`", $tag, "` ",)*), other))),
                }
            }
        }
    };
    (@arm $enum:ident, $variant:ident, $map:ident, $ty:ty) => {
        $crate::tagged::variant::<$ty>($map).map($enum::$variant).map_err(D::Error::custom)
    };
    (@arm $enum:ident, $variant:ident, $map:ident) => {
        if $map.is_empty() {
            Ok($enum::$variant)
        } else {
            let keys: Vec<String> = $map.keys().cloned().collect();
            Err(D::Error::custom(format!("unknown field `{}` for this kind (it takes no other keys)", keys.join("`, `"))))
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn split() {
        let (p, m) = split_path("topology".into(), "\0link.rate\0bad".into());
        assert_eq!((p.as_str(), m.as_str()), ("topology.link.rate", "bad"));
        let (p, m) = split_path("a".into(), "\0[2]\0\0x\0bad".into());
        assert_eq!((p.as_str(), m.as_str()), ("a[2].x", "bad"));
    }
}
