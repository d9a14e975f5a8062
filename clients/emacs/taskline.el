;;; taskline.el --- A live task list backed by the Taskline server  -*- lexical-binding: t; -*-

;; Copyright 2026 Taskline developers
;; SPDX-License-Identifier: Apache-2.0

;; Author: Taskline developers <dev@taskline.invalid>
;; URL: https://taskline.invalid/
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: convenience, calendar

;;; Commentary:

;; `M-x taskline' lists the tasks of a Taskline database in a
;; `tabulated-list-mode' buffer that stays current as tasks change,
;; whoever changes them.  Taskline is a server that speaks JSON-RPC 2.0
;; over stdio (protocol/README.md in its repository); this package
;; spawns it and talks to it with the built-in `jsonrpc' library.
;;
;; The list keeps its tasks in memory, with the `seq' of the last change
;; it applied.  A first sync fetches every task (`tasks/fetch') and
;; follows on from the page's `seq'; after that every `tasks/didChange'
;; is applied in `seq' order, and changes at or below the known `seq'
;; are skipped.  When the server was restarted, or the list reopened, it
;; catches up with `tasks/changes' from that `seq', unless the database
;; is another file (its `database.id' differs), or the server no longer
;; keeps changes that old: then it fetches everything again.
;;
;; `u' and `U' undo and redo this Emacs's changes (`tasks/undo' and
;; `tasks/redo', scope "connection"); a server without them is reported
;; as such.  Reminders (`tasks/remind') are shown as messages, when
;; `taskline-reminders' asks the server for them.

;;; Code:

(require 'cl-lib)
(require 'jsonrpc)
(require 'parse-time)
(require 'seq)
(require 'subr-x)
(require 'tabulated-list)

(defgroup taskline nil
  "A live task list backed by the Taskline server."
  :group 'applications
  :prefix "taskline-")

(defcustom taskline-server (or (getenv "TASKLINE_SERVER") "taskline")
  "The Taskline server program.
A file name, or a name to look up in the variable `exec-path'.
The default is $TASKLINE_SERVER when it is set, else \"taskline\"."
  :type 'string)

(defcustom taskline-database nil
  "The database file (the server's --db), or nil for the server's default."
  :type '(choice (const :tag "The server's default" nil) file))

(defcustom taskline-server-arguments nil
  "Further arguments for the server, such as (\"--log-level\" \"info\")."
  :type '(repeat string))

(defcustom taskline-request-timeout 10
  "Seconds a request may wait for its answer.
A server that does not answer in time is reported, stopped and started again."
  :type 'number)

(defcustom taskline-reminders t
  "Whether to ask the server for reminders, shown as messages.
A server without reminders ignores the request."
  :type 'boolean)

(defface taskline-overdue '((t :inherit error))
  "Face of the due date of an open task whose due date has passed.")

(defface taskline-done '((t :inherit shadow :strike-through t))
  "Face of the title of a done task.")

(defconst taskline--protocol-version "1")
(defconst taskline--page-size 1000)
(defconst taskline--buffer-name "*taskline*")
(defconst taskline--stop-wait 2 "Seconds a stopped server gets to exit by itself.")
(defconst taskline--stderr-tail 4096 "Characters of the server's stderr kept for reports.")
(defconst taskline--sorts '(createdAt due priority project title)
  "The orders `taskline-cycle-sort' goes through.")
(defconst taskline--priorities '("none" "low" "medium" "high"))
(defconst taskline--rule-names
  '(("FREQ=DAILY" . "daily") ("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR" . "weekdays")
    ("FREQ=WEEKLY" . "weekly") ("FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD" . "monthly")
    ("FREQ=MONTHLY;BYMONTHDAY=-1" . "lastday") ("FREQ=YEARLY" . "yearly"))
  "The names of the rules the command line's `recur:' words make.")

;;;; The server session

(cl-defstruct (taskline--session (:constructor taskline--session-make))
  connection process
  arguments  ; the server's arguments: which database it serves
  (stderr "")
  database   ; the initialize result's `database' (:id :seq), once it answered
  exit       ; how the process ended, once it has: a sentence
  stderr-closed finished
  stopping   ; the exit was asked for
  restart)   ; start a new session once this one has ended

(defvar taskline--current nil "The running session, or nil.")

(defun taskline--report (format-string &rest args)
  "Show the message FORMAT-STRING with ARGS, prefixed with \"taskline: \"."
  (message "taskline: %s" (apply #'format format-string args)))

(defun taskline--server-program ()
  "The server's file name, or nil when it cannot be found."
  (let ((name (substitute-in-file-name taskline-server)))
    (if (file-name-absolute-p name)
        (and (file-executable-p name) name)
      (executable-find name))))

(defun taskline--server-arguments ()
  "The server's arguments, from the options."
  (append (and taskline-database (list "--db" (expand-file-name taskline-database)))
          taskline-server-arguments))

(defun taskline--describe-exit (process)
  "How PROCESS ended, in words."
  (if (eq (process-status process) 'signal)
      (format "was killed by signal %d" (process-exit-status process))
    (format "exited with code %d" (process-exit-status process))))

(defun taskline--start ()
  "Start a server session; return it, or nil after reporting why it cannot start."
  (let ((program (taskline--server-program)))
    (if (not program)
        (progn (taskline--report "cannot find the server program %S; set `taskline-server'"
                                 taskline-server)
               nil)
      (let* ((session (taskline--session-make :arguments (taskline--server-arguments)))
             (stderr (make-pipe-process
                      :name "taskline stderr" :noquery t :coding 'utf-8-unix
                      :filter (lambda (_process text)
                                (let ((all (concat (taskline--session-stderr session) text)))
                                  (setf (taskline--session-stderr session)
                                        (substring all (max 0 (- (length all) taskline--stderr-tail))))))
                      :sentinel (lambda (process _event)
                                  (unless (process-live-p process)
                                    (delete-process process)
                                    (setf (taskline--session-stderr-closed session) t)
                                    (taskline--maybe-finish session)))))
             (process (condition-case failure
                          (make-process :name "taskline" :noquery t :connection-type 'pipe
                                        :coding 'utf-8-emacs-unix :stderr stderr
                                        :command (cons program (taskline--session-arguments session)))
                        (error (delete-process stderr)
                               (taskline--report "cannot start %s: %s" program
                                                 (error-message-string failure))
                               nil))))
        (when process
          (setf (taskline--session-process session) process
                (taskline--session-connection session)
                (make-instance 'jsonrpc-process-connection
                               :name "taskline" :process process
                               :events-buffer-scrollback-size 0
                               :notification-dispatcher
                               (lambda (_connection method params)
                                 (taskline--on-notification session method params))
                               :request-dispatcher #'ignore
                               :on-shutdown (lambda (_connection)
                                              (taskline--on-exit session))))
          (taskline--request
           session 'initialize
           (list :processId (emacs-pid)
                 :clientInfo (list :name "taskline.el" :version "0.1.0")
                 :initializationOptions (list :reminders (if taskline-reminders t :json-false)))
           (lambda (result) (taskline--on-initialized session result)))
          ;; A server that exits at once (a database it cannot use) may be gone before
          ;; this is sent: its exit, reported by `taskline--on-exit', says why.
          (condition-case failure
              (jsonrpc-notify (taskline--session-connection session) 'initialized nil)
            (error (when (process-live-p process)
                     (signal (car failure) (cdr failure)))))
          (and (process-live-p process) session))))))

(defun taskline--on-initialized (session result)
  "SESSION answered initialize with RESULT."
  (let ((version (plist-get result :protocolVersion)))
    (if (not (equal version taskline--protocol-version))
        (progn (taskline--report "the server speaks protocol %s, this package %s"
                                 version taskline--protocol-version)
               (taskline--stop-session session))
      (setf (taskline--session-database session) (plist-get result :database))
      (when (get-buffer taskline--buffer-name)
        (taskline--sync session nil)))))

(defun taskline--session ()
  "The running session, started if needed; nil when it cannot start.
A server started with other options (another database) is stopped first."
  (when (and taskline--current
             (not (equal (taskline--session-arguments taskline--current)
                         (taskline--server-arguments))))
    (taskline--stop-session taskline--current))
  (unless (and taskline--current
               (process-live-p (taskline--session-process taskline--current)))
    (setq taskline--current (taskline--start)))
  taskline--current)

(defun taskline--time-out-later (session method)
  "SESSION is stopped: it takes no input (sending to it is an error).
It is as stuck as one that does not answer METHOD, and is replaced when the
request would have timed out."
  (run-at-time taskline-request-timeout nil #'taskline--on-timeout session method taskline-request-timeout))

(defun taskline--request (session method params on-success &optional on-error)
  "Send METHOD with PARAMS through SESSION; call ON-SUCCESS with the result.
An error answer goes to ON-ERROR when given (with the error object),
else it is shown.  An exit of the server is reported when it happens,
not as the error of every request it leaves unanswered."
  (cond
   ((not (process-live-p (taskline--session-process session)))
    ;; It ended before the request was sent (a server that exits at once, say): its exit,
    ;; which `taskline--on-exit' reports with the server's own words, is the news.
    nil)
   ((eq (process-status (taskline--session-process session)) 'stop)
    (taskline--time-out-later session method))
   (t
    (condition-case err
        (jsonrpc-async-request
         (taskline--session-connection session) method params
         :success-fn on-success
         :error-fn (lambda (error)
                     (when (process-live-p (taskline--session-process session))
                       (if on-error
                           (funcall on-error error)
                         (taskline--report "%s" (plist-get error :message)))))
         :timeout taskline-request-timeout
         :timeout-fn (let ((timeout taskline-request-timeout))
                       (lambda () (taskline--on-timeout session method timeout))))
      (error
       ;; Emacs learns that a process stopped from a signal, which can come between the
       ;; look at its status above and the send.
       (if (eq (process-status (taskline--session-process session)) 'stop)
           (taskline--time-out-later session method)
         (signal (car err) (cdr err))))))))

(defun taskline--on-timeout (session method timeout)
  "SESSION did not answer METHOD within TIMEOUT seconds: it is stuck; replace it."
  (unless (taskline--session-stopping session)
    (taskline--report "the server did not answer %s within %s seconds; restarting it"
                      method timeout)
    (setf (taskline--session-stopping session) t
          (taskline--session-restart session) t)
    (delete-process (taskline--session-process session))))

(defun taskline--on-exit (session)
  "SESSION's process has ended."
  (setf (taskline--session-exit session)
        (taskline--describe-exit (taskline--session-process session)))
  (if (taskline--session-stderr-closed session)
      (taskline--maybe-finish session)
    ;; A child of the server could hold stderr open: do not wait for it long.
    (run-at-time 1 nil (lambda ()
                         (setf (taskline--session-stderr-closed session) t)
                         (taskline--maybe-finish session)))))

(defun taskline--maybe-finish (session)
  "Report SESSION's end once its process has ended and its stderr is read."
  (when (and (taskline--session-exit session)
             (taskline--session-stderr-closed session)
             (not (taskline--session-finished session)))
    (setf (taskline--session-finished session) t)
    (when (eq taskline--current session)
      (setq taskline--current nil))
    (unless (taskline--session-stopping session)
      (taskline--report "the server %s%s" (taskline--session-exit session)
                        (let ((stderr (string-trim (taskline--session-stderr session))))
                          (if (string-empty-p stderr) "" (concat ": " stderr)))))
    ;; A session that never answered initialize is not retried: it would fail again.
    (when (and (taskline--session-database session)
               (or (taskline--session-restart session)
                   (not (taskline--session-stopping session)))
               (get-buffer taskline--buffer-name))
      (run-at-time 0 nil #'taskline--reconnect))))

(defun taskline--reconnect ()
  "Start a new session for the open list, which catches up through it."
  (when (get-buffer taskline--buffer-name)
    (taskline--session)))

(defun taskline--stop-session (session)
  "Ask SESSION's server to shut down and exit, and wait until it has."
  (let ((process (taskline--session-process session))
        (connection (taskline--session-connection session)))
    (setf (taskline--session-stopping session) t)
    (when (eq taskline--current session)
      (setq taskline--current nil))
    (when (process-live-p process)
      (ignore-errors
        (jsonrpc-request connection 'shutdown nil :timeout taskline--stop-wait)
        (jsonrpc-notify connection 'exit nil))
      (with-timeout (taskline--stop-wait)
        (while (process-live-p process)
          (accept-process-output process 0.05))))
    (jsonrpc-shutdown connection)))

(defun taskline-stop ()
  "Stop the Taskline server.  The list, if open, no longer updates."
  (interactive)
  (when taskline--current
    (taskline--stop-session taskline--current)))

(add-hook 'kill-emacs-hook #'taskline-stop)

;;;; The tasks, kept current

(defvar taskline--tasks (make-hash-table :test #'equal) "Task id -> task (a plist).")
(defvar taskline--seq nil "The seq the tasks are up to date with; nil before a fetch.")
(defvar taskline--database-id nil "The `database.id' of the file the tasks are of.")
(defvar taskline--key nil "The server arguments the tasks came from.")
(defvar taskline--following nil "The session whose notifications are applied, or nil.")
(defvar taskline--sync-run nil
  "The sync under way, or nil: (SESSION . CHANGES-HELD-BACK).
Notifications that arrive while it runs are held, and applied when it ends.")

(defun taskline--apply-change (change)
  "Apply CHANGE (a `tasks/didChange' change) to the tasks."
  (let ((task (plist-get change :task)))
    ;; A change read after the task was deleted comes without its task.
    (if (or (equal (plist-get change :kind) "deleted") (null task))
        (remhash (plist-get change :id) taskline--tasks)
      (taskline--put-task task))))

(defun taskline--put-task (task)
  "Keep TASK, unless the tasks hold it at this version or a later one."
  (let ((known (gethash (plist-get task :id) taskline--tasks)))
    (when (or (null known) (< (plist-get known :version) (plist-get task :version)))
      (puthash (plist-get task :id) task taskline--tasks))))

(defun taskline--apply-new (changes)
  "Apply those of CHANGES after the known seq, and remember the last one's seq."
  (seq-doseq (change changes)
    (let ((seq (plist-get change :seq)))
      (when (or (null taskline--seq) (> seq taskline--seq))
        (taskline--apply-change change)
        (setq taskline--seq seq)))))

(defun taskline--on-notification (session method params)
  "SESSION sent the notification METHOD with PARAMS."
  (pcase method
    ('tasks/didChange
     (cond ((and taskline--sync-run (eq (car taskline--sync-run) session))
            (setcdr taskline--sync-run
                    (vconcat (cdr taskline--sync-run) (plist-get params :changes))))
           ((eq taskline--following session)
            (taskline--apply-new (plist-get params :changes))
            (taskline--render))))
    ('tasks/didMissChanges
     (when (or (eq taskline--following session)
               (and taskline--sync-run (eq (car taskline--sync-run) session)))
       ;; A backlog is read with tasks/changes; any other reason means the log
       ;; no longer holds the changes.
       (taskline--sync session (not (equal (plist-get params :reason) "backlog")))))
    ('tasks/remind
     (seq-doseq (task (plist-get params :tasks))
       (taskline--report "reminder: %s%s" (plist-get task :title)
                         (let ((due (taskline--due-cell task (float-time))))
                           (if (string-empty-p due) "" (concat ", due " (substring-no-properties due)))))))))

(defun taskline--sync (session refetch-all)
  "Bring the tasks up to date through SESSION.
Catch up from the known seq, or fetch everything: when REFETCH-ALL,
when nothing was fetched yet, and when the database is another file."
  (let ((key (taskline--session-arguments session))
        (run (list session)))
    (unless (equal key taskline--key)
      (clrhash taskline--tasks)
      (setq taskline--key key taskline--seq nil taskline--database-id nil))
    (setq taskline--following nil
          taskline--sync-run run)
    (if (or refetch-all (null taskline--seq)
            (not (equal taskline--database-id
                        (plist-get (taskline--session-database session) :id))))
        (taskline--refetch run)
      (taskline--catch-up run taskline--seq))))

(defun taskline--sync-failed (run error)
  "RUN failed with the error object ERROR."
  (when (eq taskline--sync-run run)
    (setq taskline--sync-run nil)
    (taskline--report "%s" (plist-get error :message))))

(defun taskline--finish-sync (run)
  "RUN has brought the tasks up to date: apply what it held back, and follow."
  (setq taskline--sync-run nil
        taskline--following (car run))
  (taskline--apply-new (cdr run))
  (taskline--render))

(defun taskline--refetch (run)
  "Fetch every task for RUN, and follow on from the first page's seq.
Later pages may show some of the changes held back; applying them again
leaves the tasks as they are."
  (let ((loading (make-hash-table :test #'equal))
        first-seq)
    (cl-labels
        ((fetch (cursor)
           (taskline--request
            (car run) 'tasks/fetch (list :limit taskline--page-size :cursor cursor)
            (lambda (page)
              (when (eq taskline--sync-run run)
                (setq first-seq (or first-seq (plist-get page :seq)))
                (seq-doseq (task (plist-get page :tasks))
                  (puthash (plist-get task :id) task loading))
                (if (plist-get page :nextCursor)
                    (fetch (plist-get page :nextCursor))
                  (setq taskline--tasks loading
                        taskline--seq first-seq
                        taskline--database-id
                        (plist-get (taskline--session-database (car run)) :id))
                  (taskline--finish-sync run))))
            (lambda (error) (taskline--sync-failed run error)))))
      (fetch nil))))

(defun taskline--catch-up (run since)
  "Apply for RUN the changes after SINCE, page by page."
  (taskline--request
   (car run) 'tasks/changes (list :since since :limit taskline--page-size)
   (lambda (page)
     (when (eq taskline--sync-run run)
       (seq-doseq (change (plist-get page :changes))
         (taskline--apply-change change))
       (setq taskline--seq (plist-get page :seq))
       (if (eq (plist-get page :hasMore) t)
           (taskline--catch-up run taskline--seq)
         (taskline--finish-sync run))))
   (lambda (error)
     (let ((code (plist-get error :code)))
       ;; 1005: changes that old are no longer kept; -32602 on `since': the
       ;; server does not know that seq (a database restored from a backup).
       (if (or (eql code 1005)
               (and (eql code -32602)
                    (equal (plist-get (plist-get error :data) :field) "since")))
           (when (eq taskline--sync-run run) (taskline--refetch run))
         (taskline--sync-failed run error))))))

;;;; Showing the tasks

(defvar-local taskline--sort 'createdAt "The order of the list: one of `taskline--sorts'.")
(defvar-local taskline--show-done nil "Whether done tasks are shown.")
(defvar-local taskline--filter-text nil "Text the title or notes must hold, or nil.")
(defvar-local taskline--filter-tag nil "A tag the tasks must have, or nil.")
(defvar-local taskline--filter-project nil
  "A project the tasks must be in (it, or one below it), or nil.")

(defun taskline--due-time (due)
  "The instant DUE (RFC 3339 date-time, or a date: midnight UTC) names, or nil."
  (ignore-errors
    (parse-iso8601-time-string
     (if (string-match-p "\\`[0-9]\\{4\\}-[0-9]\\{2\\}-[0-9]\\{2\\}\\'" due)
         (concat due "T00:00:00Z")
       due))))

(defun taskline--local-days (time)
  "The day number (as `time-to-days') of the local date equal to TIME's UTC date."
  (let ((utc (decode-time time t)))
    (time-to-days (encode-time (list 0 0 12 (decoded-time-day utc) (decoded-time-month utc)
                                     (decoded-time-year utc) nil -1 nil)))))

(defun taskline--date-only-p (stored)
  "Whether STORED (a due or a wait) is a date, without a time of day."
  (not (string-search "T" (upcase stored))))

(defun taskline--past-p (stored now)
  "Whether STORED (a due or a wait) has passed at the time NOW (seconds).
A date has once the local day is after it; a date-time once it is before NOW."
  (when-let ((time (taskline--due-time stored)))
    (if (taskline--date-only-p stored)
        (< (taskline--local-days time) (time-to-days (seconds-to-time now)))
      (< (float-time time) now))))

(defun taskline--date-words (stored open now)
  "STORED (a due or a wait) in words at the time NOW (seconds), or nil.
The rule of protocol/dates.md: \"today\", \"tomorrow 08:30\", \"in 3
days\", \"2 days overdue\" (OPEN: an open task's due, once past),
\"yesterday\", \"3 days ago\", the date further than 13 days off; a time
of day after all but \"overdue\".  Nil when STORED is no time."
  (when-let ((time (taskline--due-time stored)))
    (let* ((date-only (taskline--date-only-p stored))
           ;; A date is the same day everywhere: it is not moved into the local zone.
           (days (- (if date-only (taskline--local-days time) (time-to-days time))
                    (time-to-days (seconds-to-time now))))
           (clock (if date-only "" (format-time-string " %H:%M" time))))
      (cond ((= days 0) (concat "today" clock))
            ((= days 1) (concat "tomorrow" clock))
            ((and (= days -1) (not open)) (concat "yesterday" clock))
            ((<= 2 days 13) (format "in %d days%s" days clock))
            ((and (< days 0) open (taskline--past-p stored now))
             (format "%d day%s overdue" (- days) (if (= days -1) "" "s")))
            ((<= -13 days -2) (format "%d days ago%s" (- days) clock))
            ;; A date is shown as it is stored (UTC's zone keeps it).
            (t (concat (format-time-string "%Y-%m-%d" time date-only) clock))))))

(defun taskline--due-cell (task now)
  "The due column of TASK at the time NOW (seconds): `taskline--date-words'.
An overdue date has the face `taskline-overdue'."
  (let ((due (plist-get task :due))
        (open (not (eq (plist-get task :done) t))))
    (if (null due)
        ""
      (let ((text (or (taskline--date-words due open now) due)))
        (if (and open (taskline--past-p due now))
            (propertize text 'face 'taskline-overdue)
          text)))))

(defun taskline--waiting-p (task now)
  "Whether TASK is not actionable yet at the time NOW: its `wait' is to come."
  (let* ((wait (plist-get task :wait))
         (time (and wait (taskline--due-time wait))))
    (and time (< now (float-time time)))))

(defun taskline--in-project-p (task project)
  "Whether TASK is in PROJECT or below it (Home: Home and Home.…, not Homework)."
  (let ((own (plist-get task :project)))
    (and own (or (equal own project) (string-prefix-p (concat project ".") own)))))

(defun taskline--shown-p (task now)
  "Whether TASK passes the list's filters at the time NOW."
  (and (or taskline--show-done
           (not (or (eq (plist-get task :done) t) (taskline--waiting-p task now))))
       (or (null taskline--filter-tag)
           (seq-contains-p (plist-get task :tags) taskline--filter-tag))
       (or (null taskline--filter-project)
           (taskline--in-project-p task taskline--filter-project))
       (or (null taskline--filter-text)
           (let ((text (downcase taskline--filter-text)))
             (or (string-search text (downcase (plist-get task :title)))
                 (string-search text (downcase (plist-get task :notes))))))))

(defun taskline--sort-key (task)
  "The key TASK sorts by in the list's order: a list compared element-wise."
  (let ((created (list (plist-get task :createdAt) (plist-get task :id))))
    (pcase taskline--sort
      ('createdAt created)
      ('due (let ((time (and (plist-get task :due) (taskline--due-time (plist-get task :due)))))
              ;; Tasks without a due date come last.
              (cons (if time (float-time time) 1.0e+INF) created)))
      ('priority (cons (- (plist-get task :priority)) created))
      ('project (cons (or (plist-get task :project) "\uffff") created))
      ('title (cons (downcase (plist-get task :title)) created)))))

(defun taskline--key-less-p (a b)
  "Whether the sort key A comes before B."
  (cl-loop for x in a for y in b
           unless (equal x y) return (if (stringp x) (string< x y) (< x y))))

(defun taskline--entries ()
  "The `tabulated-list-entries' of the tasks shown, in order."
  (let ((now (float-time))
        shown)
    (maphash (lambda (_id task)
               (when (taskline--shown-p task now)
                 (push (cons (taskline--sort-key task) task) shown)))
             taskline--tasks)
    (mapcar (lambda (keyed)
              (let* ((task (cdr keyed))
                     (done (eq (plist-get task :done) t)))
                (list (plist-get task :id)
                      (vector (if done "[x]" "[ ]")
                              (if done
                                  (propertize (plist-get task :title) 'face 'taskline-done)
                                (plist-get task :title))
                              (if (zerop (plist-get task :priority)) ""
                                (nth (plist-get task :priority) taskline--priorities))
                              (taskline--due-cell task now)
                              (or (plist-get task :project) "")
                              (mapconcat (lambda (tag) (concat "#" tag))
                                         (plist-get task :tags) " ")))))
            (sort shown (lambda (a b) (taskline--key-less-p (car a) (car b)))))))

(defun taskline--place (position)
  "Where POSITION, a value `point', is in the list: (TASK-ID . LINE)."
  (save-excursion
    (goto-char position)
    (cons (tabulated-list-get-id) (line-number-at-pos))))

(defun taskline--position-of (place)
  "The position of PLACE: its task's line, else its line, else the last task's."
  (save-excursion
    (goto-char (point-min))
    (while (and (car place) (not (eobp)) (not (equal (car place) (tabulated-list-get-id))))
      (forward-line 1))
    (when (eobp)
      ;; The task is no longer shown (done, say): the line where it was, so the
      ;; next key acts on the task that took its place.
      (goto-char (point-min))
      (forward-line (1- (cdr place)))
      (when (and (eobp) (not (bobp)))
        (forward-line -1)))
    (point)))

(defun taskline--render (&optional task-id)
  "Show the tasks in the list buffer, if it is open.
Point, in the buffer and in each window that shows it, lands on TASK-ID's
line when given, else stays on its task (on its line if the task left)."
  (when-let ((buffer (get-buffer taskline--buffer-name)))
    (with-current-buffer buffer
      (let ((places (mapcar (lambda (window)
                              (cons window (taskline--place (window-point window))))
                            (get-buffer-window-list buffer nil t)))
            (place (taskline--place (point))))
        (setq tabulated-list-entries (taskline--entries)
              mode-line-process
              (concat " " (symbol-name taskline--sort)
                      (and taskline--filter-text (format " /%s" taskline--filter-text))
                      (and taskline--filter-tag (format " #%s" taskline--filter-tag))
                      (and taskline--filter-project (format " +%s" taskline--filter-project))
                      (if taskline--show-done " +done" "")))
        ;; Erasing the buffer would send every window's point to the top.
        (tabulated-list-print)
        (goto-char (taskline--position-of (if task-id (cons task-id (cdr place)) place)))
        (pcase-dolist (`(,window . ,window-place) places)
          (set-window-point window (taskline--position-of
                                    (if task-id (cons task-id (cdr window-place)) window-place)))))
      (force-mode-line-update))))

;;;; Commands

(defvar taskline-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map "a" #'taskline-add)
    (define-key map "x" #'taskline-toggle-done)
    (define-key map "d" #'taskline-toggle-done)
    (define-key map "e" #'taskline-edit)
    (define-key map "D" #'taskline-delete)
    (define-key map "/" #'taskline-filter-text)
    (define-key map "t" #'taskline-filter-tag)
    (define-key map "p" #'taskline-filter-project)
    (define-key map "u" #'taskline-undo)
    (define-key map "U" #'taskline-redo)
    (define-key map [remap undo] #'taskline-undo)
    (define-key map [remap undo-redo] #'taskline-redo)
    (define-key map "c" #'taskline-clear-filters)
    (define-key map "H" #'taskline-toggle-show-done)
    (define-key map "s" #'taskline-cycle-sort)
    map)
  "Keys of the Taskline list.")

(define-derived-mode taskline-mode tabulated-list-mode "Taskline"
  "The Taskline task list, kept current as tasks change.

\\{taskline-mode-map}
`g' fetches every task again.  Done tasks, and tasks that wait (their
`wait' is still to come), are hidden until \[taskline-toggle-show-done]."
  (setq tabulated-list-format [("" 3 nil) ("Title" 40 nil) ("Priority" 8 nil)
                               ("Due" 16 nil) ("Project" 14 nil) ("Tags" 0 nil)]
        tabulated-list-padding 1)
  (setq-local revert-buffer-function #'taskline--revert)
  (add-hook 'kill-buffer-hook #'taskline--on-list-killed nil t)
  (tabulated-list-init-header))

;;;###autoload
(defun taskline ()
  "Show the Taskline task list."
  (interactive)
  (let ((buffer (get-buffer-create taskline--buffer-name)))
    (with-current-buffer buffer
      (unless (derived-mode-p 'taskline-mode)
        (taskline-mode)))
    (pop-to-buffer-same-window buffer)
    (taskline--render)
    (let ((session (taskline--session)))
      ;; A session that has not answered initialize yet syncs when it does.
      (when (and session (taskline--session-database session)
                 (not (eq taskline--following session)))
        (taskline--sync session nil)))))

(defun taskline--on-list-killed ()
  "Stop applying notifications; what is kept serves the next sync."
  (setq taskline--following nil
        taskline--sync-run nil))

(defun taskline--revert (&rest _)
  "Fetch every task again."
  (when-let ((session (taskline--session)))
    (when (taskline--session-database session)
      (taskline--sync session t))))

(defun taskline--task-at-point ()
  "The task on the current line; an error when there is none."
  (or (gethash (tabulated-list-get-id) taskline--tasks)
      (user-error "No task on this line")))

(defun taskline--write (method params)
  "Send the write METHOD with PARAMS; show its effect, or the error in words."
  (when-let ((session (taskline--session)))
    (taskline--request
     session method params
     (lambda (result)
       (if (eq method 'tasks/delete)
           (progn (remhash (plist-get result :id) taskline--tasks)
                  (taskline--render))
         (taskline--put-task result)
         (taskline--render (plist-get result :id))))
     (lambda (error)
       (let ((data (plist-get error :data)))
         (pcase (plist-get error :code)
           (1002 (taskline--put-task (plist-get data :task))
                 (taskline--render)
                 (taskline--report "the task was changed elsewhere; the list shows it as it is now"))
           (1001 (remhash (plist-get data :id) taskline--tasks)
                 (taskline--render)
                 (taskline--report "the task was deleted elsewhere"))
           (_ (taskline--report "%s" (taskline--error-in-words error)))))))))

(defun taskline--error-in-words (error)
  "The JSON-RPC ERROR for people: a refused value by its field and reason."
  (let* ((data (plist-get error :data))
         (field (and (listp data) (plist-get data :field)))
         (reason (and (listp data) (plist-get data :reason))))
    (cond ((not (and (eql (plist-get error :code) -32602) (stringp field) (stringp reason)))
           (plist-get error :message))
          ;; Words tasks/parse refused: the command line's own message says what is taken.
          ((equal field "text") reason)
          (t (format "%s: %s" (car (last (split-string field "\\."))) reason)))))

(defun taskline--parse (text task on-parsed)
  "Read TEXT as the command line's words (`tasks/parse'), then call ON-PARSED.
Without TASK the words are those of `taskline add' and ON-PARSED gets the
`tasks/create' params; with TASK, those of `taskline modify' and it gets the
`tasks/update' changes.  A refusal is shown in the command line's words."
  (when-let ((session (taskline--session)))
    (taskline--request
     session 'tasks/parse (append (list :text text) (and task (list :id (plist-get task :id))))
     (lambda (result)
       (funcall on-parsed (if task (plist-get result :changes) (plist-get result :task))))
     (lambda (error) (taskline--report "%s" (taskline--error-in-words error))))))

(defun taskline--stored-and-words (stored open now)
  "STORED (a time) as stored, in local time, and in words at the time NOW.
\"2026-12-11 (in 3 days)\"; OPEN as for `taskline--date-words'."
  (let* ((time (taskline--due-time stored))
         (shown (cond ((null time) stored)
                      ((taskline--date-only-p stored) stored)
                      (t (format-time-string "%Y-%m-%d %H:%M" time))))
         (words (taskline--date-words stored open now)))
    (if (or (null words) (equal words shown)) shown (format "%s (%s)" shown words))))

(defun taskline--parsed-in-words (fields now)
  "What `tasks/parse' made of words, in words at the time NOW (seconds).
FIELDS is a plist of `tasks/create' params or `tasks/update' changes:
\"“Call the bank”  due 2026-12-11 (in 3 days)  priority high  +money\"."
  (let ((order '(:title :due :wait :remindAt :recurrence :priority :project :tags :dependsOn :done))
        (open (not (eq (plist-get fields :done) t)))
        names)
    (cl-loop for (name _) on fields by #'cddr
             unless (memq name order) do (push name names))
    (mapconcat
     (lambda (name)
       (let ((value (plist-get fields name))
             (label (pcase name
                      (:remindAt "remind") (:dependsOn "depends on") (:recurrence "repeat")
                      (_ (substring (symbol-name name) 1)))))
         (cond ((eq name :title) (format "“%s”" value))
               ((null value) (concat "no " label))
               ((memq name '(:due :wait :remindAt))
                (concat label " " (taskline--stored-and-words value (and (eq name :due) open) now)))
               ((and (eq name :priority) (nth value taskline--priorities))
                (concat "priority " (nth value taskline--priorities)))
               ((eq name :tags)
                (if (seq-empty-p value) "no tags" (mapconcat (lambda (tag) (concat "+" tag)) value " ")))
               ((eq name :recurrence)
                (let ((rule (plist-get value :rule)))
                  (concat "repeats " (or (cdr (assoc rule taskline--rule-names)) rule))))
               ((eq name :dependsOn)
                (if (seq-empty-p value) "depends on none"
                  (format "depends on %d task%s" (length value) (if (= (length value) 1) "" "s"))))
               ((eq name :done) (if (eq value t) "done" "open"))
               (t (format "%s %s" label value)))))
     (seq-filter (lambda (name) (plist-member fields name)) (append order (nreverse names)))
     "  ")))

(defvar-local taskline--preview nil
  "In the minibuffer of quick add, the overlay that shows what the words make.")

(defun taskline--preview-start ()
  "Show under the minibuffer's words, as they change, what they make.
The server reads them with `tasks/parse', which writes nothing."
  (setq taskline--preview (make-overlay (point-max) (point-max) nil t t))
  (add-hook 'after-change-functions #'taskline--preview-ask nil t)
  (add-hook 'minibuffer-exit-hook #'taskline--preview-stop nil t))

(defun taskline--preview-stop ()
  "Stop showing what this minibuffer's words make."
  (remove-hook 'after-change-functions #'taskline--preview-ask t)
  (remove-hook 'minibuffer-exit-hook #'taskline--preview-stop t)
  (when taskline--preview
    (delete-overlay taskline--preview)
    (setq taskline--preview nil)))

(defun taskline--preview-show (text face)
  "Show TEXT with FACE under the minibuffer's words; nil TEXT shows nothing."
  (overlay-put taskline--preview 'after-string
               (and text (concat "\n" (propertize text 'face face)))))

(defun taskline--preview-ask (&rest _)
  "Ask the server what the minibuffer's words make, and show its answer.
An answer for words since changed, or for an earlier minibuffer, is dropped."
  (let ((text (minibuffer-contents-no-properties))
        (preview taskline--preview)
        (buffer (current-buffer)))
    (if (string-blank-p text)
        (taskline--preview-show nil nil)
      (when-let ((session (taskline--session)))
        (let ((answered
               (lambda (shown face)
                 (when (buffer-live-p buffer)
                   (with-current-buffer buffer
                     (when (and (eq preview taskline--preview)
                                (equal text (minibuffer-contents-no-properties)))
                       (taskline--preview-show shown face)))))))
          (taskline--request
           session 'tasks/parse (list :text text)
           (lambda (result)
             (funcall answered (concat "→ " (taskline--parsed-in-words (plist-get result :task)
                                                                     (float-time)))
                      'shadow))
           (lambda (error)
             (funcall answered (concat "✗ " (taskline--error-in-words error)) 'error))))))))

(defun taskline--update (task changes)
  "Send CHANGES (a plist) to TASK, unless it changed since the list saw it."
  (taskline--write 'tasks/update (list :id (plist-get task :id) :changes changes
                                       :ifVersion (plist-get task :version))))

(defun taskline-add (text)
  "Add a task from TEXT, the words `taskline add' takes.
\"Call the bank +money due:fri pri:H\" is a task called \"Call the bank\",
tagged money, of high priority, due next Friday; the server reads the
words (`tasks/parse'), so they mean what they mean on the command line.
As they are typed, what they make shows under them."
  (interactive (list (minibuffer-with-setup-hook #'taskline--preview-start
                       (read-string "New task (title +tag due:fri pri:H …): "))))
  (if (string-blank-p text)
      (taskline--report "a task needs a title")
    (taskline--parse text nil (lambda (params) (taskline--write 'tasks/create params)))))

(defun taskline-toggle-done ()
  "Mark the task on the current line done; reopen it when it is done."
  (interactive)
  (let ((task (taskline--task-at-point)))
    (taskline--update task (list :done (if (eq (plist-get task :done) t) :json-false t)))))

(defun taskline--read-tags (prompt initial)
  "Read tags separated by spaces, with PROMPT and the vector INITIAL shown."
  (vconcat (split-string (read-string prompt (string-join (append initial nil) " "))
                         nil t)))

(defconst taskline--date-fields '((due "Due" :due) (wait "Wait until" :wait)
                                  (remind "Remind at" :remindAt))
  "The fields that take a date: the command line's name, the prompt, the member.")

(defun taskline--edit-date (task field)
  "Read FIELD of TASK (one of `taskline--date-fields') in the command line's words.
\"fri\", \"+3d\", \"eom\", \"tomorrow 9am\" or a date mean what they mean to
`taskline modify' (`tasks/parse' reads them); an empty answer clears it."
  (pcase-let ((`(,prompt ,member) (alist-get field taskline--date-fields)))
    (let ((words (string-trim (read-string (format "%s (fri, +3d, eom, 2026-12-01 9am; empty: none): "
                                                   prompt)
                                           (plist-get task member)))))
      (taskline--parse (format "%s:%s" field words) task
                       (lambda (changes) (taskline--update task changes))))))

(defun taskline-edit (field)
  "Change FIELD of the task on the current line.
FIELD is title, notes, due, wait, remind, priority, project or tags.  The
dates are read in the command line's words."
  (interactive (list (intern (completing-read "Edit: " '("title" "notes" "due" "wait" "remind"
                                                         "priority" "project" "tags")
                                              nil t))))
  (let ((task (taskline--task-at-point)))
    (if (assq field taskline--date-fields)
        (taskline--edit-date task field)
      (taskline--edit-value task field))))

(defun taskline--edit-value (task field)
  "Read FIELD of TASK, a field that is not a date, and send it."
  (let ((value
         (pcase field
           ('title (read-string "Title: " (plist-get task :title)))
           ('notes (read-string "Notes: " (plist-get task :notes)))
           ('project (let ((project (string-trim (read-string "Project (Home.Garage; empty: none): "
                                                              (plist-get task :project)))))
                       (if (string-empty-p project) nil project)))
           ('priority (cl-position (completing-read "Priority: " taskline--priorities nil t nil nil
                                                    (nth (plist-get task :priority) taskline--priorities))
                                   taskline--priorities :test #'equal))
           ('tags (taskline--read-tags "Tags (separated by spaces): " (plist-get task :tags)))
           (_ (user-error "No such field: %s" field)))))
    (taskline--update task (list (intern (format ":%s" field)) value))))

(defun taskline-delete ()
  "Delete the task on the current line, after confirmation."
  (interactive)
  (let ((task (taskline--task-at-point)))
    (when (yes-or-no-p (format "Delete %S? " (plist-get task :title)))
      (taskline--write 'tasks/delete (list :id (plist-get task :id)
                                           :ifVersion (plist-get task :version))))))

(defun taskline-filter-text (text)
  "Show only the tasks whose title or notes hold TEXT; empty TEXT shows all."
  (interactive (list (read-string "Filter by text (empty: none): " taskline--filter-text)))
  (setq taskline--filter-text (if (string-empty-p text) nil text))
  (taskline--render))

(defun taskline--known (values-of)
  "The distinct values among the tasks' VALUES-OF (a function giving a sequence)."
  (let (known)
    (maphash (lambda (_id task)
               (seq-doseq (value (funcall values-of task))
                 (cl-pushnew value known :test #'equal)))
             taskline--tasks)
    known))

(defun taskline-filter-tag (tag)
  "Show only the tasks tagged TAG; empty TAG shows all."
  (interactive
   (list (completing-read "Filter by tag (empty: none): "
                          (taskline--known (lambda (task) (plist-get task :tags))))))
  (setq taskline--filter-tag (if (string-empty-p tag) nil tag))
  (taskline--render))

(defun taskline-filter-project (project)
  "Show only the tasks in PROJECT or below it; empty PROJECT shows all."
  (interactive
   (list (completing-read "Filter by project (empty: none): "
                          (taskline--known (lambda (task) (ensure-list (plist-get task :project)))))))
  (setq taskline--filter-project (if (string-empty-p project) nil project))
  (taskline--render))

(defun taskline-clear-filters ()
  "Show the tasks whatever their text, tags and project."
  (interactive)
  (setq taskline--filter-text nil taskline--filter-tag nil taskline--filter-project nil)
  (taskline--render))

(defun taskline--undo-or-redo (method word &optional force)
  "Send METHOD (tasks/undo or tasks/redo) for this connection's changes.
WORD names it.  After an undo conflict (another program changed a task
since) ask whether to go ahead anyway, then send it again with FORCE."
  (when-let ((session (taskline--session)))
    (taskline--request
     session method (append (list :scope "connection") (and force (list :force t)))
     (lambda (result)
       ;; {undone|redone: group, tasks, deleted}, or {} when there was nothing to revert.
       (unless (or (plist-get result :undone) (plist-get result :redone))
         (taskline--report "nothing to %s" word)))
     (lambda (error)
       (pcase (plist-get error :code)
         (-32601 (taskline--report "this taskline server cannot %s (it does not know %s)" word method))
         (1007 (when (yes-or-no-p
                      (format "Changed by another program since: %s.  %s anyway? "
                              (mapconcat (lambda (task) (format "%S" (plist-get task :title)))
                                         (plist-get (plist-get error :data) :tasks) ", ")
                              (capitalize word)))
                 (taskline--undo-or-redo method word t)))
         (_ (taskline--report "%s" (taskline--error-in-words error))))))))

(defun taskline-undo ()
  "Undo the newest change made from this Emacs (`tasks/undo')."
  (interactive)
  (taskline--undo-or-redo 'tasks/undo "undo"))

(defun taskline-redo ()
  "Redo the newest change undone from this Emacs (`tasks/redo')."
  (interactive)
  (taskline--undo-or-redo 'tasks/redo "redo"))

(defun taskline-toggle-show-done ()
  "Show or hide the done and waiting tasks (hidden at first)."
  (interactive)
  (setq taskline--show-done (not taskline--show-done))
  (taskline--render))

(defun taskline-cycle-sort ()
  "Order the list by the next of creation, due date, priority and title."
  (interactive)
  (setq taskline--sort (or (cadr (memq taskline--sort taskline--sorts))
                           (car taskline--sorts)))
  (message "Tasks sorted by %s" taskline--sort)
  (taskline--render))

(provide 'taskline)
;;; taskline.el ends here
