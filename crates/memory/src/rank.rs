//! Lexical relevance (MEM-2): Okapi BM25 over short texts.
//!
//! Facts are a sentence or two and a store holds hundreds, not millions:
//! scoring them all on each query costs microseconds, so there is no index
//! to keep in step with the log. Written here rather than taken from a
//! crate because it is thirty lines with the one tokenisation the store
//! needs, and the search crates bring an index and a tokenizer
//! configuration this does not use.

use std::collections::{HashMap, HashSet};

/// The usual BM25 parameters.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// English words too common to tell facts apart.
const STOP: &[&str] = &[
    "an", "and", "are", "as", "at", "be", "by", "do", "for", "from", "has", "have", "he", "her", "his", "in",
    "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them",
    "they", "this", "to", "was", "we", "were", "what", "when", "with", "you", "your",
];

/// The words of `text` as the ranking sees them: runs of letters and
/// digits, lower case, of two characters or more, without the most
/// common English words.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect()
}

/// The BM25 score of each document for `query`, in the documents' order.
pub(crate) fn bm25(query: &str, documents: &[Vec<String>]) -> Vec<f64> {
    let n = documents.len() as f64;
    if documents.is_empty() {
        return Vec::new();
    }
    let average = documents.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let terms: HashSet<String> = words(query).into_iter().collect();
    let mut frequency: HashMap<&str, f64> = HashMap::new();
    for doc in documents {
        let seen: HashSet<&str> = doc.iter().map(String::as_str).collect();
        for term in terms.iter().filter(|t| seen.contains(t.as_str())) {
            *frequency.entry(term.as_str()).or_default() += 1.0;
        }
    }
    documents
        .iter()
        .map(|doc| {
            let length = doc.len() as f64;
            terms
                .iter()
                .map(|term| {
                    let tf = doc.iter().filter(|w| *w == term).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = frequency.get(term.as_str()).copied().unwrap_or(0.0);
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average.max(1.0)))
                })
                .sum()
        })
        .collect()
}

/// How alike two texts are by their words (Jaccard), from 0 to 1.
pub(crate) fn overlap(a: &str, b: &str) -> f64 {
    let a: HashSet<String> = words(a).into_iter().collect();
    let b: HashSet<String> = words(b).into_iter().collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    a.intersection(&b).count() as f64 / a.union(&b).count().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_2_bm25_prefers_rare_matching_terms() {
        let docs: Vec<Vec<String>> = [
            "The user prefers tabs in Python code",
            "The user works on a Rust parser",
            "The user lives in Lyon and works remotely",
        ]
        .iter()
        .map(|d| words(d))
        .collect();
        let scores = bm25("how should I indent this python file", &docs);
        assert!(
            scores[0] > 0.0 && scores[1] == 0.0 && scores[2] == 0.0,
            "{scores:?}"
        );
        let scores = bm25("rust parser works", &docs);
        assert!(scores[1] > scores[2] && scores[2] > scores[0], "{scores:?}");
        assert!(bm25("x", &[]).is_empty());
    }

    #[test]
    fn mem_2_overlap() {
        assert_eq!(overlap("Uses tabs.", "uses TABS"), 1.0);
        assert!(overlap("prefers tabs in python", "prefers spaces in python") < 0.8);
        assert_eq!(overlap("", ""), 1.0);
    }
}
