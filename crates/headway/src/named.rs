//! Closed sets of names a configuration chooses from (a predictor, a firmware scheduler):
//! each is an enum whose names are written once, in its declaration, and serve for serde,
//! for listing and for parsing, an unknown name being an error that lists the known ones.

/// Declares `enum $Kind` with one variant a name, deriving serde under those names, and
/// `ALL`, `NAMES`, `name()` and `parse()` (errors are `HeadwayError::Unknown` naming
/// `$what`).
macro_rules! named_kind {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Kind:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $Variant:ident = $name:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        $vis enum $Kind {
            $( $(#[$vmeta])* #[serde(rename = $name)] $Variant, )+
        }

        impl $Kind {
            /// Every kind, in listing order.
            pub const ALL: &'static [$Kind] = &[$($Kind::$Variant),+];
            /// Every kind's name, in listing order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The name a configuration gives this kind.
            pub const fn name(self) -> &'static str {
                match self {
                    $($Kind::$Variant => $name,)+
                }
            }

            /// The kind called `name`; an unknown name is an error listing the known ones.
            pub fn parse(name: &str) -> $crate::error::Result<$Kind> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|k| k.name() == name)
                    .ok_or_else(|| $crate::error::HeadwayError::Unknown {
                        kind: $what,
                        name: name.to_string(),
                        known: Self::NAMES.iter().map(|n| n.to_string()).collect(),
                    })
            }
        }
    };
}

pub(crate) use named_kind;
