//! [`Text`]: a message's text, shared instead of copied.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An immutable string that is cheap to clone: the text of a
/// [`Message`](crate::Message).
///
/// A message's text is held once, however many places hold the message:
/// the full log, the window, a compaction plan, a rendered context and
/// the records of a conversation share it, and cloning a message copies a
/// pointer instead of its text. `Text` reads like a `&str` (it derefs to
/// one) and is built from any string; to change a message's text, assign
/// a new one.
///
/// ```
/// use strata_ctx_core::{Message, Text};
///
/// let mut m = Message::user("hello");
/// assert_eq!(m.content, "hello");
/// assert!(m.content.starts_with("he"));
/// let copy = m.clone();
/// assert!(Text::ptr_eq(&m.content, &copy.content)); // one text, two messages
/// m.content = format!("{} world", m.content).into();
/// assert_eq!(m.content.as_str(), "hello world");
/// assert_eq!(copy.content, "hello");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Text(Arc<str>);

impl Text {
    /// An empty text.
    pub fn new() -> Self {
        Text::default()
    }

    /// The text as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `a` and `b` are the same text in memory (not only equal).
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl Default for Text {
    fn default() -> Self {
        // One empty text for the whole process: empty contents (tool calls
        // without a thought, envelopes) cost no allocation.
        static EMPTY: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
        Text(EMPTY.get_or_init(|| Arc::from("")).clone())
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        if s.is_empty() {
            return Text::default();
        }
        Text(Arc::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        if s.is_empty() {
            return Text::default();
        }
        Text(Arc::from(s))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Self {
        Text::from(s.as_str())
    }
}

impl From<Cow<'_, str>> for Text {
    fn from(s: Cow<'_, str>) -> Self {
        match s {
            Cow::Borrowed(s) => Text::from(s),
            Cow::Owned(s) => Text::from(s),
        }
    }
}

impl From<Box<str>> for Text {
    fn from(s: Box<str>) -> Self {
        Text::from(String::from(s))
    }
}

impl From<&Text> for Text {
    fn from(s: &Text) -> Self {
        s.clone()
    }
}

impl From<Text> for String {
    fn from(t: Text) -> Self {
        t.0.to_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == &*other.0
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// Builds the shared text straight from the parser's string: one
        /// copy, not a `String` and then a second one.
        struct V;
        impl Visitor<'_> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text::from(v))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Text, E> {
                Ok(Text::from(v))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_compares_like_a_string() {
        let t = Text::from("abc");
        assert_eq!(t, "abc");
        assert_eq!("abc", t);
        assert_eq!(t, String::from("abc"));
        assert_eq!(t.len(), 3);
        assert_eq!(format!("{t}|{t:?}"), "abc|\"abc\"");
        assert_eq!(String::from(t.clone()), "abc");
        assert_ne!(t, "abd");
    }

    #[test]
    fn clones_share_and_empties_do_not_allocate() {
        let t = Text::from(String::from("shared"));
        assert!(Text::ptr_eq(&t, &t.clone()));
        assert!(Text::ptr_eq(&Text::from(""), &Text::default()));
        assert!(!Text::ptr_eq(&Text::from("x"), &Text::from("x")));
    }

    #[test]
    fn json_is_a_plain_string() {
        let t: Text = serde_json::from_str(r#""a\nb""#).unwrap();
        assert_eq!(t, "a\nb");
        assert_eq!(serde_json::to_string(&t).unwrap(), r#""a\nb""#);
        assert!(serde_json::from_str::<Text>("3").is_err());
    }
}
