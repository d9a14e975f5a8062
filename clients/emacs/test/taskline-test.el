;;; taskline-test.el --- Tests of taskline.el against the real server  -*- lexical-binding: t; -*-

;; Run by run.sh in batch Emacs; every test opens the list on a fresh
;; database and drives it with its keys, answering the prompts.

;;; Code:

(require 'ert)
(require 'taskline)
(require 'text-property-search)

(defconst taskline-test--wait 5 "Seconds a test waits for something to show.")

(defvar taskline-test--db nil "The database of the running test.")
(defvar taskline-test--messages nil "The taskline messages shown, newest first.")

(defun taskline-test--record-message (show format-string &rest args)
  "Record the taskline messages, then SHOW FORMAT-STRING with ARGS."
  (when (and format-string (string-prefix-p "taskline: " format-string))
    (push (apply #'format format-string args) taskline-test--messages))
  (apply show format-string args))

(defun taskline-test--take-messages ()
  "The taskline messages shown so far, oldest first; forgets them."
  (prog1 (reverse taskline-test--messages)
    (setq taskline-test--messages nil)))

(defun taskline-test--wait-for (what predicate &optional seconds)
  "Process events until PREDICATE holds; fail naming WHAT after SECONDS."
  (let ((deadline (+ (float-time) (or seconds taskline-test--wait))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (unless (funcall predicate)
      (ert-fail (list "timed out waiting for" what (taskline-test--lines))))))

(defun taskline-test--lines ()
  "The lines of the list buffer, trailing spaces removed."
  (when-let ((buffer (get-buffer taskline--buffer-name)))
    (with-current-buffer buffer
      (mapcar (lambda (line) (string-trim-right line))
              (split-string (buffer-string) "\n" t)))))

(defun taskline-test--wait-for-lines (expected)
  "Wait until the list shows EXPECTED (lines, columns collapsed to one space)."
  (taskline-test--wait-for
   (format "lines %S" expected)
   (lambda ()
     (equal expected (mapcar (lambda (line)
                               (string-trim (replace-regexp-in-string " +" " " line)))
                             (taskline-test--lines))))))

(defun taskline-test--cli (&rest args)
  "Run the taskline command ARGS on the test's database; return its output."
  (with-temp-buffer
    (let ((status (apply #'call-process (taskline--server-program) nil t nil
                         (car args) "--db" taskline-test--db (cdr args))))
      (unless (eql status 0)
        (ert-fail (list "taskline" args "exited with" status (buffer-string)))))
    (buffer-string)))

(defun taskline-test--goto (title)
  "Put point on the line of the task called TITLE."
  (set-buffer taskline--buffer-name)
  (goto-char (point-min))
  (unless (search-forward title nil t)
    (ert-fail (list "no line shows" title (taskline-test--lines))))
  (beginning-of-line))

(defun taskline-test--press (key &rest answers)
  "Run the command KEY is bound to in the list, answering its prompts with ANSWERS."
  (let ((answer (lambda (&rest _)
                  (unless answers (ert-fail (list "unexpected prompt after" key)))
                  (pop answers))))
    (cl-letf (((symbol-function 'read-string) answer)
              ((symbol-function 'completing-read) answer)
              ((symbol-function 'yes-or-no-p) answer))
      (with-current-buffer taskline--buffer-name
        (call-interactively (lookup-key taskline-mode-map (kbd key)))))
    (when answers
      (ert-fail (list key "left answers unused" answers)))))

(defun taskline-test--open ()
  "\\[taskline], then wait until the list follows the server."
  (taskline)
  (taskline-test--wait-for "the list to follow a server"
                           (lambda () (and taskline--current
                                           (eq taskline--following taskline--current)))))

(defun taskline-test--delete-database (db)
  "Delete the database file DB with its WAL and shared-memory files."
  (dolist (suffix '("" "-wal" "-shm"))
    (when (file-exists-p (concat db suffix))
      (delete-file (concat db suffix)))))

(defmacro taskline-test--with-database (&rest body)
  "Run BODY with a fresh database, a fresh list, and messages recorded.
Any taskline message BODY leaves untaken fails the test."
  (declare (indent 0))
  `(let* ((taskline-test--db (make-temp-file "taskline-test" nil ".sqlite"))
          (taskline-database taskline-test--db)
          (taskline-request-timeout 10)
          (taskline-test--messages nil))
     (delete-file taskline-test--db)
     (advice-add 'message :around #'taskline-test--record-message)
     (unwind-protect
         (progn ,@body
                (should (equal nil (taskline-test--take-messages))))
       (advice-remove 'message #'taskline-test--record-message)
       (when (get-buffer taskline--buffer-name)
         (kill-buffer taskline--buffer-name))
       (taskline-stop)
       (taskline-test--delete-database taskline-test--db))))

(defmacro taskline-test--recording-methods (var &rest body)
  "Run BODY with VAR bound to the methods requested meanwhile, newest first."
  (declare (indent 1))
  `(let* ((,var nil)
          (record (lambda (_session method &rest _) (push method ,var))))
     (advice-add 'taskline--request :before record)
     (unwind-protect (progn ,@body)
       (advice-remove 'taskline--request record))))

(defun taskline-test--date (days)
  "The UTC date DAYS from today, as YYYY-MM-DD."
  (format-time-string "%Y-%m-%d" (time-add nil (* days 86400)) t))

;; The vectors every front-end's dates are tested against (protocol/dates.md).
(defconst taskline-test--dates-shown
  (expand-file-name "../../../protocol/conformance/dates-shown.json"
                    (file-name-directory (or load-file-name buffer-file-name)))
  "The file of the cases of how dates read.")

(ert-deftest taskline-test-dates-read-as-the-vectors-say ()
  "Dates read as protocol/dates.md says, in every zone of its vectors."
  (let ((examples (plist-get (with-temp-buffer
                               (insert-file-contents taskline-test--dates-shown)
                               (json-parse-buffer :object-type 'plist :false-object nil))
                             :cases))
        (zone (getenv "TZ"))
        wrong)
    (should (> (length examples) 30))
    (unwind-protect
        (seq-doseq (example examples)
          (setenv "TZ" (plist-get example :timeZone))
          (let* ((now (float-time (parse-iso8601-time-string (plist-get example :now))))
                 (stored (plist-get example :stored))
                 (open (plist-get example :open))
                 (shown (taskline--date-words stored open now))
                 (overdue (and open (taskline--past-p stored now) t)))
            (unless (and (equal shown (plist-get example :shown))
                         (eq overdue (plist-get example :overdue)))
              (push (list (plist-get example :name) shown overdue) wrong))))
      (setenv "TZ" zone))
    (should (null wrong))))

(ert-deftest taskline-test-list-shows-tasks ()
  "The list shows done mark, title, priority, relative due date and tags; done hidden."
  (taskline-test--with-database
    (taskline-test--cli "add" "--priority" "high" "--tag" "work" "--tag" "docs"
                        "--due" "2020-01-01" "Write the report")
    (taskline-test--cli "add" "--due" (taskline-test--date 3) "Grüße, 世界")
    (taskline-test--cli "done" (cadr (split-string (taskline-test--cli "add" "Finished already"))))
    (taskline-test--open)
    (let* ((ago (format "%d days overdue" (- (time-to-days nil)
                                            (time-to-days (encode-time '(0 0 12 1 1 2020 nil -1 nil)))))))
      (taskline-test--wait-for-lines
       (list (concat "[ ] Write the report high " ago " #docs #work")
             "[ ] Grüße, 世界 in 3 days"))
      (taskline-test--goto "Write the report")
      (search-forward ago)
      (should (eq 'taskline-overdue (get-text-property (1- (point)) 'face)))
      (taskline-test--press "H")
      (taskline-test--wait-for-lines
       (list (concat "[ ] Write the report high " ago " #docs #work")
             "[ ] Grüße, 世界 in 3 days" "[x] Finished already")))))

(ert-deftest taskline-test-add ()
  "a adds a task with the title typed, on the server and in the list."
  (taskline-test--with-database
    (taskline-test--open)
    (taskline-test--press "a" "Buy milk")
    (taskline-test--wait-for-lines '("[ ] Buy milk"))
    (should (string-match-p "\\[ \\]  Buy milk" (taskline-test--cli "list")))))

(defun taskline-test--next-friday ()
  "`fri' as the command line reads it: the next Friday after today, YYYY-MM-DD."
  (let ((weekday (decoded-time-weekday (decode-time))))
    (format-time-string "%Y-%m-%d" (time-add nil (* 86400 (1+ (mod (- 4 weekday) 7)))))))

(defun taskline-test--stored (db)
  "The tasks of the database DB, as `taskline all --json' shows them."
  (with-temp-buffer
    (unless (eql 0 (call-process (taskline--server-program) nil t nil "all" "--db" db "--json"))
      (ert-fail (list "taskline all failed" (buffer-string))))
    (goto-char (point-min))
    (append (json-parse-buffer :object-type 'plist :array-type 'list) nil)))

(defun taskline-test--made-by-add (words)
  "The task `taskline add' makes of WORDS (a string) in a database of its own."
  (let ((db (make-temp-file "taskline-cli" nil ".sqlite")))
    (delete-file db)
    (unwind-protect
        (progn
          (with-temp-buffer
            (unless (eql 0 (apply #'call-process (taskline--server-program) nil t nil
                                  "add" "--db" db (split-string words)))
              (ert-fail (list "taskline add failed" (buffer-string)))))
          (car (taskline-test--stored db)))
      (taskline-test--delete-database db))))

(ert-deftest taskline-test-add-takes-the-command-lines-words ()
  "a reads the words `taskline add' takes (tasks/parse) and makes the same task."
  (taskline-test--with-database
    (taskline-test--open)
    (taskline-test--press "a" "Call the bank +money due:fri pri:H")
    (taskline-test--wait-for "the task" (lambda ()
                                          (seq-find (lambda (line) (string-search "Call the bank" line))
                                                    (taskline-test--lines))))
    (let ((task (car (taskline-test--stored taskline-test--db)))
          (made (taskline-test--made-by-add "Call the bank +money due:fri pri:H")))
      (should (equal "Call the bank" (plist-get task :title)))
      (should (equal '("money") (plist-get task :tags)))
      (should (equal 3 (plist-get task :priority)))
      (should (equal (taskline-test--next-friday) (plist-get task :due)))
      (dolist (member '(:title :tags :priority :due :project :recurrence :wait))
        (should (equal (plist-get made member) (plist-get task member)))))
    ;; Words the grammar refuses: the command line's message, and nothing is made.
    (taskline-test--press "a" "Call re:bank")
    (taskline-test--wait-for "the refusal" (lambda () taskline-test--messages))
    (let ((messages (taskline-test--take-messages)))
      (should (string-prefix-p "taskline: re:bank: re is not one of" (car messages))))
    (should (= 1 (length (taskline-test--stored taskline-test--db))))))

(defun taskline-test--preview ()
  "What the minibuffer of quick add shows under the words, or nil."
  (when-let ((shown (and taskline--preview (overlay-get taskline--preview 'after-string))))
    (string-remove-prefix "\n" (substring-no-properties shown))))

(defun taskline-test--type-and-see (words expected)
  "Put WORDS in the current (mini)buffer; wait until the preview starts with EXPECTED."
  (erase-buffer)
  (insert words)
  (taskline-test--wait-for (format "the preview %S, have %S" expected (taskline-test--preview))
                           (lambda () (string-prefix-p expected (or (taskline-test--preview) "")))))

(ert-deftest taskline-test-add-previews-what-the-words-make ()
  "a shows under the words, as they are typed, what tasks/parse makes of them."
  (taskline-test--with-database
    (taskline-test--open)
    (let* ((made (format "→ “Call the bank”  due %s (in 3 days)  priority high  +money"
                         (taskline-test--date 3)))
           (minibuffer nil)
           (typing
            (lambda (&rest _)
              ;; The minibuffer, as read-string would set it up; the words as typed.
              (with-temp-buffer
                (setq minibuffer (current-buffer))
                (run-hooks 'minibuffer-setup-hook)
                (taskline-test--type-and-see "Call the bank +money due:+3d pri:H" made)
                (taskline-test--type-and-see "Call re:bank" "✗ re:bank: re is not one of")
                (taskline-test--type-and-see
                 "Water the plants recur:weekly wait:tomorrow"
                 (format "→ “Water the plants”  wait %s 00:00 (tomorrow 00:00)  repeats weekly"
                         (taskline-test--date 1)))
                (erase-buffer)
                (insert "  ")
                (should (null (taskline-test--preview)))
                (should (null (taskline-test--stored taskline-test--db)))
                (taskline-test--type-and-see "Call the bank +money due:+3d pri:H" made)
                (run-hooks 'minibuffer-exit-hook)
                (should (null (overlays-in (point-min) (point-max))))
                (buffer-string)))))
      (cl-letf (((symbol-function 'read-string) typing))
        (with-current-buffer taskline--buffer-name
          (call-interactively #'taskline-add)))
      (should minibuffer)
      (taskline-test--wait-for-lines '("[ ] Call the bank high in 3 days #money")))))

(ert-deftest taskline-test-edit-dates-take-the-command-lines-words ()
  "e due, wait and remind read the command line's date words (tasks/parse with the id)."
  (taskline-test--with-database
    (taskline-test--cli "add" "Pay rent")
    (taskline-test--open)
    (taskline-test--goto "Pay rent")
    (taskline-test--press "e" "due" "whenever")
    (taskline-test--wait-for "the refusal" (lambda () taskline-test--messages))
    (should (string-match-p "\\`taskline: due: " (car (taskline-test--take-messages))))
    ;; The wait comes last: it hides the task.
    (let ((id (plist-get (taskline--task-at-point) :id)))
      (dolist (edit '(("due" "fri") ("remind" "fri 9am") ("wait" "+3d")))
        (let ((version (plist-get (gethash id taskline--tasks) :version)))
          (apply #'taskline-test--press "e" edit)
          (taskline-test--wait-for (car edit) (lambda ()
                                                (< version (plist-get (gethash id taskline--tasks)
                                                                      :version)))))))
    (let ((task (car (taskline-test--stored taskline-test--db))))
      (should (equal (taskline-test--next-friday) (plist-get task :due)))
      (should (string-prefix-p (concat (taskline-test--next-friday) "T09:00:00")
                               (plist-get task :remindAt)))
      (should (string-prefix-p (taskline-test--date 3) (plist-get task :wait))))))

(ert-deftest taskline-test-point-stays-on-the-task-touched ()
  "After a, e and x point is on the task touched, or where it was when it left."
  (taskline-test--with-database
    (taskline-test--cli "add" "First")
    (taskline-test--cli "add" "Second")
    (taskline-test--cli "add" "Third")
    (taskline-test--open)
    (let ((title-at-point (lambda ()
                            (with-current-buffer taskline--buffer-name
                              (plist-get (gethash (tabulated-list-get-id) taskline--tasks)
                                         :title)))))
      (taskline-test--goto "First")
      (taskline-test--press "a" "Fourth")
      (taskline-test--wait-for "point on the added task"
                               (lambda () (equal "Fourth" (funcall title-at-point))))
      (taskline-test--press "s")          ; by due date
      (taskline-test--press "s")          ; by priority: the edited task moves up
      (taskline-test--goto "Third")
      (taskline-test--press "e" "priority" "high")
      (taskline-test--wait-for-lines '("[ ] Third high" "[ ] First" "[ ] Second" "[ ] Fourth"))
      (should (equal "Third" (funcall title-at-point)))
      (taskline-test--goto "First")
      ;; The done task is hidden: point is on the one that took its line, so the
      ;; next x completes that one, not the first in the list.
      (taskline-test--press "x")
      (taskline-test--wait-for-lines '("[ ] Third high" "[ ] Second" "[ ] Fourth"))
      (should (equal "Second" (funcall title-at-point)))
      (taskline-test--press "x")
      (taskline-test--wait-for-lines '("[ ] Third high" "[ ] Fourth"))
      (should (equal "Fourth" (funcall title-at-point))))))

(ert-deftest taskline-test-relative-dates-as-the-command-line-shows-them ()
  "The due column reads as `taskline list' shows the same dates."
  (taskline-test--with-database
    (let ((at (lambda (days clock)
                (format-time-string (concat "%Y-%m-%dT" clock ":00Z")
                                    (time-add nil (* days 86400)) t))))
      (taskline-test--cli "add" "--due" (taskline-test--date -2) "Two days late")
      (taskline-test--cli "add" "--due" (taskline-test--date -1) "One day late")
      (taskline-test--cli "add" "--due" (funcall at 1 "08:30") "Tomorrow morning")
      (taskline-test--cli "add" "--due" (funcall at 3 "17:00") "Later this week")
      (taskline-test--cli "add" "--due" (taskline-test--date 20) "Far off")
      (taskline-test--cli "add" "--due" (funcall at 13 "17:00") "In two weeks")
      (dolist (title '("Done yesterday" "Done three days ago"))
        (taskline-test--cli "add" "--due" (taskline-test--date (if (equal title "Done yesterday") -1 -3))
                            title))
      (dolist (line (split-string (taskline-test--cli "list") "\n" t))
        (when (string-match "\\([0-9a-f]+\\) .*Done" line)
          (taskline-test--cli "done" (match-string 1 line))))
      (taskline-test--open)
      (taskline-test--press "H")
      (let ((expected `(("Two days late" "2 days overdue") ("One day late" "1 day overdue")
                        ("Tomorrow morning" "tomorrow 08:30") ("Later this week" "in 3 days 17:00")
                        ("Far off" ,(taskline-test--date 20)) ("In two weeks" "in 13 days 17:00") ("Done yesterday" "yesterday")
                        ("Done three days ago" "3 days ago")))
            (cli (split-string (taskline-test--cli "list" "status:all") "\n" t)))
        (taskline-test--wait-for "every task" (lambda () (= 8 (length (taskline-test--lines)))))
        (pcase-dolist (`(,title ,due) expected)
          (let ((cell (with-current-buffer taskline--buffer-name
                        (taskline-test--goto title)
                        (aref (tabulated-list-get-entry) 3))))
            (should (equal (list title due) (list title (substring-no-properties cell))))
            ;; The command line shows the same words on the task's line.
            (should (seq-find (lambda (line) (and (string-search title line)
                                                  (string-search due line)))
                              cli))))
        ;; The Due column is wide enough for them: none is cut (shown with an ellipsis).
        (with-current-buffer taskline--buffer-name
          (goto-char (point-min))
          (should-not (text-property-search-forward 'display "…" #'equal)))))))

(ert-deftest taskline-test-toggle-done ()
  "x marks the task done (hidden by default); d, with done shown, undoes it."
  (taskline-test--with-database
    (taskline-test--cli "add" "Water the plants")
    (taskline-test--cli "add" "Call Alice")
    (taskline-test--open)
    (taskline-test--goto "Water the plants")
    (taskline-test--press "x")
    (taskline-test--wait-for-lines '("[ ] Call Alice"))
    (should (string-match-p "\\[x\\]  Water the plants" (taskline-test--cli "list" "--done")))
    (taskline-test--press "H")
    (taskline-test--goto "Water the plants")
    (taskline-test--press "d")
    (taskline-test--wait-for-lines
     '("[ ] Water the plants" "[ ] Call Alice"))
    (should-not (string-match-p "Water the plants" (taskline-test--cli "list" "--done")))))

(ert-deftest taskline-test-edit ()
  "e changes title, notes, due, priority and tags, one at a time."
  (taskline-test--with-database
    (taskline-test--cli "add" "Draft")
    (taskline-test--open)
    (taskline-test--goto "Draft")
    (taskline-test--press "e" "title" "Final text")
    (taskline-test--wait-for-lines '("[ ] Final text"))
    ;; Each edit is sent with the version the list shows (ifVersion): wait for its answer.
    (dolist (edit `(("priority" "medium") ("tags" "b a") ("due" ,(taskline-test--date 1))
                    ("notes" "two\nlines")))
      (let ((version (plist-get (taskline--task-at-point) :version)))
        (apply #'taskline-test--press "e" edit)
        (taskline-test--wait-for (car edit) (lambda ()
                                              (< version (plist-get (taskline--task-at-point)
                                                                    :version))))))
    (taskline-test--wait-for-lines
     '("[ ] Final text medium tomorrow #a #b"))
    (let ((task (aref (json-parse-string (taskline-test--cli "list" "--json")
                                         :object-type 'plist) 0)))
      (should (equal "two\nlines" (plist-get task :notes)))
      (should (equal (taskline-test--date 1) (plist-get task :due))))
    (taskline-test--press "e" "due" "")
    (taskline-test--wait-for-lines '("[ ] Final text medium #a #b"))))

(ert-deftest taskline-test-delete ()
  "D deletes the task on the line only when confirmed."
  (taskline-test--with-database
    (taskline-test--cli "add" "Keep me")
    (taskline-test--cli "add" "Remove me")
    (taskline-test--open)
    (taskline-test--goto "Remove me")
    (taskline-test--press "D" nil)
    (taskline-test--goto "Remove me")
    (taskline-test--press "D" t)
    (taskline-test--wait-for-lines '("[ ] Keep me"))
    (should-not (string-match-p "Remove me" (taskline-test--cli "list" "--all")))))

(ert-deftest taskline-test-filter-and-sort ()
  "/ filters by text, t by tag, c clears; s cycles the order."
  (taskline-test--with-database
    (taskline-test--cli "add" "--tag" "home" "--priority" "low" "--due" (taskline-test--date 5)
                        "Buy milk")
    (taskline-test--cli "add" "--tag" "work" "--priority" "high" "--notes" "MILK budget"
                        "Accounts")
    (taskline-test--cli "add" "--tag" "home" "--due" (taskline-test--date 2) "Clean up")
    (taskline-test--open)
    (taskline-test--press "/" "milk")
    (taskline-test--wait-for-lines
     '("[ ] Buy milk low in 5 days #home" "[ ] Accounts high #work"))
    (taskline-test--press "t" "home")
    (taskline-test--wait-for-lines '("[ ] Buy milk low in 5 days #home"))
    (taskline-test--press "c")
    (taskline-test--press "s")            ; by due date, none last
    (taskline-test--wait-for-lines
     '("[ ] Clean up in 2 days #home"
       "[ ] Buy milk low in 5 days #home" "[ ] Accounts high #work"))
    (taskline-test--press "s")            ; by priority, high first
    (taskline-test--wait-for-lines
     '("[ ] Accounts high #work"
       "[ ] Buy milk low in 5 days #home" "[ ] Clean up in 2 days #home"))
    (taskline-test--press "s")            ; by project: none, so by creation
    (taskline-test--wait-for-lines
     '("[ ] Buy milk low in 5 days #home"
       "[ ] Accounts high #work" "[ ] Clean up in 2 days #home"))
    (taskline-test--press "s")            ; by title
    (taskline-test--wait-for-lines
     '("[ ] Accounts high #work"
       "[ ] Buy milk low in 5 days #home" "[ ] Clean up in 2 days #home"))
    (taskline-test--press "s")            ; by creation again
    (taskline-test--wait-for-lines
     '("[ ] Buy milk low in 5 days #home"
       "[ ] Accounts high #work" "[ ] Clean up in 2 days #home"))))

(ert-deftest taskline-test-change-by-another-process ()
  "A task another process adds shows up without a key press."
  (taskline-test--with-database
    (taskline-test--open)
    (taskline-test--cli "add" "From outside")
    (taskline-test--wait-for-lines '("[ ] From outside"))))

(ert-deftest taskline-test-stale-and-missed-changes ()
  "A change at or below the list's seq is skipped; tasks/didMissChanges catches up."
  (taskline-test--with-database
    (taskline-test--cli "add" "First")
    (taskline-test--open)
    (let ((session taskline--current)
          (seq taskline--seq))
      (taskline--on-notification session 'tasks/didChange
                                 (list :seq seq :changes
                                       (vector (list :seq seq :kind "deleted"
                                                     :id (car (hash-table-keys taskline--tasks))
                                                     :version 1))))
      (taskline-test--wait-for-lines '("[ ] First"))
      ;; Drop the next change as a server with a backlog would, then say so.
      (let* ((dropped nil)
             (drop (lambda (&rest _) (setq dropped t))))
        (advice-add 'taskline--on-notification :before-until drop)
        (unwind-protect
            (progn (taskline-test--cli "add" "Second")
                   (taskline-test--wait-for "the change to be dropped" (lambda () dropped)))
          (advice-remove 'taskline--on-notification drop)))
      (should (equal seq taskline--seq))
      (taskline--on-notification session 'tasks/didMissChanges
                                 (list :since seq :seq (1+ seq) :reason "backlog"))
      (taskline-test--wait-for-lines '("[ ] First" "[ ] Second"))
      (should (equal (1+ seq) taskline--seq))
      (taskline-test--recording-methods methods
        (taskline--on-notification session 'tasks/didMissChanges
                                   (list :since (1+ seq) :seq (1+ seq) :reason "historyExpired"))
        (taskline-test--wait-for "a refetch" (lambda () (eq taskline--following session)))
        (should (equal '(tasks/fetch) methods))))))

(ert-deftest taskline-test-restart-catches-up ()
  "After a restart the list catches up from its seq, without fetching everything."
  (taskline-test--with-database
    (taskline-test--cli "add" "Before")
    (taskline-test--open)
    (let ((first taskline--current))
      (taskline-test--recording-methods methods
        (signal-process (taskline--session-process first) 'KILL)
        (taskline-test--cli "add" "While restarting")
        (taskline-test--wait-for-lines '("[ ] Before" "[ ] While restarting"))
        (taskline-test--wait-for "a new server" (lambda () (eq taskline--following taskline--current)))
        (should (equal '(tasks/changes initialize) methods))))
    (should (equal '("taskline: the server was killed by signal 9") (taskline-test--take-messages)))))

(ert-deftest taskline-test-replaced-database-is-refetched ()
  "A database file replaced by another (another database.id, same seq) is fetched anew."
  (taskline-test--with-database
    (taskline-test--cli "add" "In the old file")
    (taskline-test--open)
    (taskline-stop)
    (taskline-test--delete-database taskline-test--db)
    (taskline-test--cli "add" "In the new file")
    (taskline-test--recording-methods methods
      (taskline-test--open)
      (should (equal '(tasks/fetch initialize) methods)))
    (taskline-test--wait-for-lines '("[ ] In the new file"))))

(ert-deftest taskline-test-killed-server-is-reported-and-restarted ()
  "A server killed while the list is open is reported; a new one follows the changes."
  (taskline-test--with-database
    (taskline-test--open)
    (let ((first taskline--current))
      (signal-process (taskline--session-process first) 'KILL)
      (taskline-test--wait-for "a new server" (lambda () (and taskline--current
                                                              (not (eq taskline--current first))
                                                              (eq taskline--following taskline--current))))
      (should (equal '("taskline: the server was killed by signal 9")
                     (taskline-test--take-messages)))
      (taskline-test--cli "add" "After the restart")
      (taskline-test--wait-for-lines '("[ ] After the restart")))))

(ert-deftest taskline-test-unanswered-request-times-out ()
  "A request a stuck server does not answer is reported, and the server replaced."
  (taskline-test--with-database
    (taskline-test--open)
    (let ((first taskline--current))
      (signal-process (taskline--session-process first) 'STOP)
      (let ((taskline-request-timeout 0.3))
        (taskline-test--press "a" "Never answered"))
      (taskline-test--wait-for "a new server" (lambda () (and taskline--current
                                                              (not (eq taskline--current first))
                                                              (eq taskline--following taskline--current))))
      (should (equal '("taskline: the server did not answer tasks/parse within 0.3 seconds; restarting it")
                     (taskline-test--take-messages))))))

(ert-deftest taskline-test-server-stopped-during-the-send ()
  "A server that stops between the look at its status and the send is replaced as a stuck one.
Emacs learns of the stop from a signal, which can come at any time: here it comes
just before the send."
  (taskline-test--with-database
    (taskline-test--open)
    (let* ((first taskline--current)
           (process (taskline--session-process first))
           (send (symbol-function 'jsonrpc-async-request)))
      (cl-letf (((symbol-function 'jsonrpc-async-request)
                 (lambda (&rest arguments)
                   (signal-process process 'STOP)
                   (while (not (eq (process-status process) 'stop))
                     (accept-process-output nil 0.01))
                   (apply send arguments))))
        (let ((taskline-request-timeout 0.3))
          (taskline-test--press "a" "Never sent")))
      (taskline-test--wait-for "a new server" (lambda () (and taskline--current
                                                              (not (eq taskline--current first))
                                                              (eq taskline--following taskline--current))))
      (should (equal '("taskline: the server did not answer tasks/parse within 0.3 seconds; restarting it")
                     (taskline-test--take-messages))))))

(ert-deftest taskline-test-other-database ()
  "With `taskline-database' changed, g shows the other database, from a new server."
  (taskline-test--with-database
    (taskline-test--cli "add" "In the first")
    (taskline-test--open)
    (let* ((first taskline--current)
           (taskline-test--db (make-temp-file "taskline-test" nil ".sqlite"))
           (taskline-database taskline-test--db))
      (delete-file taskline-test--db)
      (unwind-protect
          (progn
            (taskline-test--cli "add" "In the second")
            (taskline-test--press "g")
            (taskline-test--wait-for-lines '("[ ] In the second"))
            (should-not (process-live-p (taskline--session-process first))))
        (taskline-stop)
        (taskline-test--delete-database taskline-test--db)))))

(ert-deftest taskline-test-bad-database ()
  "A database file that is not one gives a clear error, and no endless restarts."
  (taskline-test--with-database
    (with-temp-file taskline-test--db (insert "these are not the tasks you are looking for\n"))
    (taskline)
    (taskline-test--wait-for "a message" (lambda () taskline-test--messages))
    (let ((messages (taskline-test--take-messages)))
      (should (= 1 (length messages)))
      (should (string-match-p "\\`taskline: the server exited with code 3: .*not a \\(SQLite \\)?database"
                              (car messages))))
    (accept-process-output nil 0.3)
    (should-not taskline--current)))

(ert-deftest taskline-test-server-gone-before-the-start-is-sent ()
  "A server that exits before the client has sent its start is reported by its exit.
The client waits here, before its first request, until the server has exited: what a
loaded machine can make of a database the server refuses at once."
  (taskline-test--with-database
    (with-temp-file taskline-test--db (insert "these are not the tasks you are looking for\n"))
    (let ((request (symbol-function 'taskline--request)))
      (cl-letf (((symbol-function 'taskline--request)
                 (lambda (session &rest arguments)
                   (while (process-live-p (taskline--session-process session))
                     (accept-process-output (taskline--session-process session) 0.05))
                   (apply request session arguments))))
        (taskline)))
    (taskline-test--wait-for "the exit's message"
                             (lambda () (seq-some (lambda (message) (string-match-p "exited with code 3" message))
                                                  taskline-test--messages)))
    (accept-process-output nil 0.3)
    ;; The exit alone: not also a complaint that the server the start was sent to is gone.
    (let ((messages (taskline-test--take-messages)))
      (should (= 1 (length messages)))
      (should (string-match-p "\\`taskline: the server exited with code 3: " (car messages))))
    (should-not taskline--current)))

(defun taskline-test--call (method params)
  "Send METHOD with PARAMS through the list's server; return the result.
An error answer is signalled as (taskline-test-error CODE).  Asynchronous:
a `jsonrpc-request' throws out of the process filter when its answer comes,
and the messages read with the answer (its `tasks/didChange') would be lost."
  (let (answer)
    (jsonrpc-async-request (taskline--session-connection taskline--current) method params
                           :success-fn (lambda (result) (setq answer (list :result result)))
                           :error-fn (lambda (error) (setq answer (list :error error))))
    (taskline-test--wait-for (format "the answer to %s" method) (lambda () answer))
    (when (plist-get answer :error)
      (signal 'taskline-test-error (list (plist-get (plist-get answer :error) :code))))
    (plist-get answer :result)))

(define-error 'taskline-test-error "The server answered with an error")

(ert-deftest taskline-test-project-column-filter-and-sort ()
  "The project shows in its column; p filters by a project and those below it; s sorts by it."
  (taskline-test--with-database
    (taskline-test--open)
    (taskline-test--call 'tasks/create '(:title "Sweep" :project "Home"))
    (taskline-test--call 'tasks/create '(:title "Fix the door" :project "Home.Garage"))
    (taskline-test--call 'tasks/create '(:title "Essay" :project "Homework"))
    (taskline-test--call 'tasks/create '(:title "No project"))
    (taskline-test--wait-for-lines
     '("[ ] Sweep Home" "[ ] Fix the door Home.Garage" "[ ] Essay Homework" "[ ] No project"))
    (taskline-test--press "p" "Home")
    (taskline-test--wait-for-lines '("[ ] Sweep Home" "[ ] Fix the door Home.Garage"))
    (should (string-match-p " \\+Home\\'" (with-current-buffer taskline--buffer-name mode-line-process)))
    (taskline-test--press "c")
    (taskline-test--press "s")            ; by due date: none, so by creation
    (taskline-test--press "s")            ; by priority: none, so by creation
    (taskline-test--press "s")            ; by project, none last
    (taskline-test--wait-for-lines
     '("[ ] Sweep Home" "[ ] Fix the door Home.Garage" "[ ] Essay Homework" "[ ] No project"))
    (taskline-test--call 'tasks/create '(:title "Alpha" :project "Alpha"))
    (taskline-test--wait-for-lines
     '("[ ] Alpha Alpha" "[ ] Sweep Home" "[ ] Fix the door Home.Garage" "[ ] Essay Homework"
       "[ ] No project"))))

(ert-deftest taskline-test-edit-project-and-wait ()
  "e sets and clears the project and the wait; a waiting task is hidden with the done ones."
  (taskline-test--with-database
    (taskline-test--cli "add" "Plan")
    (taskline-test--open)
    (taskline-test--goto "Plan")
    (taskline-test--press "e" "project" "Home.Travel")
    (taskline-test--wait-for-lines '("[ ] Plan Home.Travel"))
    (taskline-test--goto "Plan")
    (taskline-test--press "e" "project" "Home..Travel")
    (taskline-test--wait-for "the refusal" (lambda () taskline-test--messages))
    (should (equal '("taskline: project: each dot-separated segment must be 1 to 64 characters")
                   (taskline-test--take-messages)))
    (taskline-test--goto "Plan")
    (taskline-test--press "e" "wait" (taskline-test--date 2))
    (taskline-test--wait-for-lines '())
    (taskline-test--press "H")
    (taskline-test--wait-for-lines '("[ ] Plan Home.Travel"))
    (taskline-test--goto "Plan")
    (let ((version (plist-get (taskline--task-at-point) :version)))
      (taskline-test--press "e" "project" "")
      (taskline-test--wait-for "the project cleared"
                               (lambda () (< version (plist-get (taskline--task-at-point) :version)))))
    (taskline-test--press "e" "wait" "")
    (taskline-test--press "H")
    (taskline-test--wait-for-lines '("[ ] Plan"))
    (let ((task (aref (plist-get (taskline-test--call 'tasks/fetch nil) :tasks) 0)))
      (should (equal '(nil nil) (list (plist-get task :project) (plist-get task :wait)))))))

(ert-deftest taskline-test-undo-and-redo ()
  "u and U send tasks/undo and tasks/redo for this Emacs's changes."
  (taskline-test--with-database
    (taskline-test--open)
    (if (condition-case failure
            (progn (taskline-test--call 'tasks/undo '(:scope "connection")) nil)
          (taskline-test-error (eql -32601 (cadr failure))))
        ;; A server without undo: the keys say so in words.
        (progn
          (taskline-test--press "u")
          (taskline-test--wait-for "a message" (lambda () taskline-test--messages))
          (taskline-test--press "U")
          (taskline-test--wait-for "a second message" (lambda () (cdr taskline-test--messages)))
          (should (equal '("taskline: this taskline server cannot undo (it does not know tasks/undo)"
                           "taskline: this taskline server cannot redo (it does not know tasks/redo)")
                         (taskline-test--take-messages))))
      (taskline-test--press "a" "Undo me")
      (taskline-test--wait-for-lines '("[ ] Undo me"))
      (taskline-test--press "u")
      (taskline-test--wait-for-lines '())
      (taskline-test--press "U")
      (taskline-test--wait-for-lines '("[ ] Undo me"))
      (taskline-test--press "u")
      (taskline-test--wait-for-lines '())
      (taskline-test--press "u")
      (taskline-test--wait-for "a message" (lambda () taskline-test--messages))
      (should (equal '("taskline: nothing to undo") (taskline-test--take-messages)))
      ;; A task changed elsewhere since: undo asks first, and reverts nothing unless told to.
      (taskline-test--press "a" "Mine")
      (taskline-test--wait-for-lines '("[ ] Mine"))
      (taskline-test--cli "done" (car (hash-table-keys taskline--tasks)))
      (taskline-test--wait-for-lines '())
      (let ((questions nil)
            (answer nil))
        (cl-letf (((symbol-function 'yes-or-no-p)
                   (lambda (question) (push question questions) answer)))
          (taskline-test--press "u")
          (taskline-test--wait-for "the question" (lambda () questions))
          (should (equal '("Changed by another program since: \"Mine\".  Undo anyway? ") questions))
          (should (= 1 (hash-table-count taskline--tasks)))
          (setq answer t)
          (taskline-test--press "u")
          (taskline-test--wait-for "the task to be gone"
                                   (lambda () (zerop (hash-table-count taskline--tasks)))))))))

(ert-deftest taskline-test-reminders ()
  "initialize asks for reminders; each task of a tasks/remind is shown as a message."
  (taskline-test--with-database
    (let ((initialize nil))
      (let ((record (lambda (_session method params &rest _)
                      (when (eq method 'initialize) (setq initialize params)))))
        (advice-add 'taskline--request :before record)
        (unwind-protect (taskline-test--open)
          (advice-remove 'taskline--request record)))
      (should (equal '(:reminders t) (plist-get initialize :initializationOptions))))
    (taskline--on-notification taskline--current 'tasks/remind
                               (list :tasks (vector (list :title "Call the plumber"
                                                          :due (taskline-test--date 1))
                                                    (list :title "Water the plants"))))
    (should (equal '("taskline: reminder: Call the plumber, due tomorrow"
                     "taskline: reminder: Water the plants")
                   (taskline-test--take-messages)))))

(ert-deftest taskline-test-missing-server ()
  "A server program that cannot be found is named."
  (taskline-test--with-database
    (let ((taskline-server "/nonexistent/taskline"))
      (taskline))
    (should (equal '("taskline: cannot find the server program \"/nonexistent/taskline\"; set `taskline-server'")
                   (taskline-test--take-messages)))))

;;; taskline-test.el ends here
