//! Groups of TOML keys read from a table one key at a time. Each value is deserialized where
//! it stands, so its type errors keep their line; serde's tagged and flattened forms buffer
//! the table first and lose it, and flattening also loses `deny_unknown_fields`. A table
//! made of several groups offers each key to them in turn and reports a key none of them
//! takes with the whole list.

/// A struct of optional keys, each field the key of its name, with `KEYS` (the names in
/// order) and `read` (take the value of one of them from a map).
macro_rules! key_group {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$field_meta:meta])* $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Default)]
        $vis struct $name {
            $($(#[$field_meta])* pub(crate) $field: Option<$ty>,)*
        }

        impl $name {
            #[allow(dead_code)]
            pub(crate) const KEYS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Take the value of `key` from `map` if it is one of these keys; `false` if not.
            pub(crate) fn read<'de, A: serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> ::std::result::Result<bool, A::Error> {
                match key {
                    $(stringify!($field) => self.$field = Some(map.next_value()?),)*
                    _ => return Ok(false),
                }
                Ok(true)
            }
        }
    };
}

pub(crate) use key_group;

/// A key of a table taking `.0` (every key, in the order errors list them): one not among
/// them is refused as it is read, so the error points at its line.
pub(crate) struct KnownKey(pub(crate) &'static [&'static str]);

impl<'de> serde::de::DeserializeSeed<'de> for KnownKey {
    type Value = &'static str;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<&'static str, D::Error> {
        let key = <String as serde::Deserialize>::deserialize(d)?;
        let known = self.0.iter().find(|k| **k == key);
        known
            .copied()
            .ok_or_else(|| serde::de::Error::unknown_field(&key, self.0))
    }
}
