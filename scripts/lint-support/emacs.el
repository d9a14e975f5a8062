;;; emacs.el --- scripts/lint's checks of an Emacs package  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; emacs -batch -Q -l scripts/lint-support/emacs.el FILE.el...
;; Byte-compiles each file with warnings as errors (into a temporary folder: no .elc is
;; left behind), then runs checkdoc and package-lint on it.  Prints each finding as
;; FILE:LINE: message and exits 1 when there is any.

;;; Code:

(require 'bytecomp)
(require 'checkdoc)
(require 'package)

;; -Q leaves out Debian's site start-up, which is what lists its packages (elpa-*).
(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(require 'package-lint)

(defvar taskline-lint-findings 0
  "How many findings the checks have printed.")

(defun taskline-lint-report (file line message)
  "Print MESSAGE about LINE of FILE and count it."
  (setq taskline-lint-findings (1+ taskline-lint-findings))
  (princ (format "%s:%s: %s\n" file line message)))

;; Turned off: package-lint 0.16 (Debian 12) predates Emacs 28 and calls any Emacs >= 28
;; unreleased; an Emacs at least as new as the one running this has been released.
(advice-add 'package-lint--check-emacs-version :filter-args
            (lambda (arguments)
              (list (seq-remove (lambda (dependency)
                                  (and (eq (car dependency) 'emacs)
                                       (version-list-<= (cadr dependency) (version-to-list emacs-version))))
                                (car arguments)))))

(defun taskline-lint-byte-compile (file)
  "Byte-compile FILE with warnings as errors, into a temporary folder."
  (let* ((folder (make-temp-file "taskline-lint" t))
         (byte-compile-error-on-warn t)
         (byte-compile-dest-file-function
          (lambda (source) (expand-file-name (concat (file-name-nondirectory source) "c") folder))))
    (unwind-protect
        (unless (eq (byte-compile-file file) t)
          (taskline-lint-report file 0 "byte-compile failed (its error is above)"))
      (delete-directory folder t))))

;; Turned off: checkdoc's experimental verb check reads plural nouns and argument names as
;; verbs in the wrong voice ("the CHANGES", "empty TEXT shows all").
(setq checkdoc-verb-check-experimental-flag nil)

(defun taskline-lint-checkdoc (file)
  "Run checkdoc on FILE."
  (let ((checkdoc-create-error-function
         (lambda (text start _end &optional _unfixable)
           (taskline-lint-report file (line-number-at-pos start) (concat "checkdoc: " text))
           nil))
        (checkdoc-autofix-flag 'never))
    (with-current-buffer (find-file-noselect file)
      (checkdoc-current-buffer t))))

(defun taskline-lint-package-lint (file)
  "Run package-lint on FILE."
  (with-current-buffer (find-file-noselect file)
    (pcase-dolist (`(,line ,_column ,type ,message) (package-lint-buffer))
      (taskline-lint-report file line (format "package-lint %s: %s" type message)))))

(dolist (file command-line-args-left)
  (taskline-lint-byte-compile file)
  (taskline-lint-checkdoc file)
  (taskline-lint-package-lint file))
(setq command-line-args-left nil)
(kill-emacs (if (zerop taskline-lint-findings) 0 1))

;;; emacs.el ends here
