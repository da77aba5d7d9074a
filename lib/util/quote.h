/*
 * Text from outside tierlab (a spec, a database, a trace, a command line)
 * written into another language as data, never as code: one function per
 * language, and every writer of that language goes through it
 * (docs/reliability.md, "Hostile input"). tests/fuzz/fuzz-quote.c parses
 * each form back and checks it holds the text it was given.
 */
#ifndef TL_QUOTE_H
#define TL_QUOTE_H

#include <stddef.h>
#include <stdio.h>

/*
 * s as a gnuplot single-quoted string: gnuplot runs `command` in a
 * double-quoted string, not in a single-quoted one, where nothing but a
 * doubled quote ('' for ') means anything. The text is made visible first
 * (util/visible.h: a newline as "\n", an escape as "\x1b"), as a newline
 * would end the command and start another. NULL is ''.
 */
void tl_quote_gnuplot(FILE *out, const char *s);

/*
 * s as the label of a tic given in a `set xtics ("label" pos, ...)` list,
 * which gnuplot reads as a format of the tic's value ("40%" would be a
 * bad format, "%g" the number): as tl_quote_gnuplot, each '%' doubled.
 */
void tl_quote_gnuplot_tic(FILE *out, const char *s);

/*
 * s as a string column of a gnuplot data file: in double quotes, which a
 * data file cannot escape, so '"' is written "\x22"; made visible like
 * tl_quote_gnuplot, as a newline would end the row. NULL is "".
 */
void tl_quote_gnuplot_data(FILE *out, const char *s);

/*
 * w as one shell word that any position in a bash command line reads back
 * as w: as it is when it holds only letters, digits and -_./:,+@%= (and
 * is not NAME=..., an assignment as a command's first word, nor starts
 * with % or =), else in single quotes (' as '\''), or, when it holds a
 * control character, as bash's $'...' with C escapes, so that no word
 * ever ends a line of a script or of a here-document.
 */
void tl_quote_shell(FILE *out, const char *w);
/* argc words quoted by tl_quote_shell, one space apart, malloc'd; NULL when out of memory. */
char *tl_quote_shell_argv(char *const *argv, size_t argc);

/*
 * Can v be one value of an #SBATCH line? 0, or -EINVAL with *why ("is
 * empty", "holds a newline, ...") when it is empty or holds a control
 * character: a newline would end the directive and make the rest a line
 * of the script.
 */
int tl_sbatch_value_check(const char *v, const char **why);
/*
 * v as one argument of an #SBATCH line, as sbatch reads it back: as it is
 * when plain (letters, digits, -_./:,+@%=), else in double quotes with
 * '\' before '"' and '\' (an unquoted '#' starts a comment there, a space
 * ends the argument) and before the last letter of "hetjob" or "packjob",
 * which sbatch looks for anywhere in the line. -EINVAL, writing nothing,
 * when tl_sbatch_value_check refuses v.
 */
int tl_quote_sbatch(FILE *out, const char *v);

/*
 * cell as one CSV field (RFC 4180): quoted when it holds a comma, quote,
 * CR or LF (quotes doubled). A cell a spreadsheet would take for a
 * formula, one starting with = + - @ TAB CR or LF (OWASP's list), gets a
 * leading ' unless it is a number as tierlab writes numbers (-3.5,
 * 1e-05), which stays a number. NULL is an empty field.
 */
void tl_quote_csv(FILE *out, const char *cell);

#endif
