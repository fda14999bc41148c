// Package doccheck checks the repository's Markdown the way GitHub renders it:
// every relative link must name a file or directory that exists, and a link
// with a #fragment must name a heading (or an explicit HTML anchor) of the
// Markdown file it points to.
//
// Headings become anchors by GitHub's rules, as the github-slugger package
// implements them (Slug): the heading's plain text is lower-cased, every
// character that is not a letter, a mark, a decimal or letter number, a
// connector punctuation ('_'), '-' or a space is dropped, and spaces become
// '-'. A repeated slug gets "-1", "-2", … (Slugger). Links inside fenced code
// blocks and inline code spans are not links; absolute URLs (http:, https:,
// mailto:, …) are not checked.
//
// The repository's own test (TestRepositoryDocs) runs Check over README.md,
// docs/, examples/ and bench/, so a page that moves or a heading that is
// renamed fails the build instead of a reader's click.
package doccheck
