//! What a dialect hands the core as data, on hand-built specs: a checker of values, review
//! labels and Decline, custom rows of its own or none, question notes without option notes,
//! secret questions, pre-filled answers, and flows without questions.

use std::sync::Arc;

use crate::common::*;
use askd::core::{
    Answer, CancelReason, Checker, CustomRow, FlowError, FlowSpec, Focus, Outcome, Question,
    QuestionType, ReviewAction, Rules,
};
use askd::dialect::DialectId;
use askd::session::{OpenOptions, Session};
use askd::view;

/// Digits only, for the checker.
fn digits(_: &FlowSpec, _: usize, text: &str) -> Result<(), String> {
    if text.trim().chars().all(|c| c.is_ascii_digit()) {
        Ok(())
    } else {
        Err("digits only".to_owned())
    }
}

/// Every question needs an answer, for the checker.
fn answered(spec: &FlowSpec, index: usize, answer: &Answer) -> Result<(), String> {
    if answer.is_answered() {
        Ok(())
    } else {
        Err(format!("{} needs an answer", spec.questions[index].label))
    }
}

const CHECKED: Rules = Rules {
    dialect: "checked",
    notes: true,
    review: &[
        ReviewAction::Submit,
        ReviewAction::Decline,
        ReviewAction::Cancel,
    ],
    exclusive_custom: true,
    free_text: true,
    option_notes: false,
    review_labels: &[
        (ReviewAction::Submit, "Send"),
        (ReviewAction::Cancel, "Close"),
    ],
    checker: Some(Checker {
        text: digits,
        answer: answered,
    }),
    empty: true,
    cursor_on_answer: true,
};

/// A session of the pi dialect's id on a spec with the rules above.
fn checked(questions: Vec<Question>) -> Session {
    let spec = FlowSpec {
        title: None,
        questions,
        rules: CHECKED,
        requester: Some("tester".to_owned()),
        source: None,
        behaviour: Default::default(),
    };
    Session::from_spec(DialectId::PI, Arc::new(spec), &OpenOptions::default())
}

fn free(id: &str) -> Question {
    question(id, QuestionType::Single, &[])
}

#[test]
fn the_checker_refuses_a_save_and_the_reason_clears_on_typing() {
    let mut s = checked(vec![free("n"), free("m")]);
    assert_eq!(flow(&s).focus(), Focus::Input);
    press(&mut s, "12a<CR>");
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert_eq!(flow(&s).answers()[0], Answer::default());
    assert_eq!(
        flow(&s).editor().unwrap().refusal.as_deref(),
        Some("digits only")
    );
    press(&mut s, "<BS>");
    assert_eq!(flow(&s).editor().unwrap().refusal, None);
    press(&mut s, "<CR>");
    assert_eq!(flow(&s).answers()[0], custom("12"));
    assert_eq!(flow(&s).tab(), 1);
    assert_eq!(
        s.flow_mut().unwrap().save_custom("m", "x", false),
        Err(FlowError::Refused("digits only".to_owned()))
    );
}

#[test]
fn the_checker_blocks_submit_until_every_answer_passes() {
    let mut s = checked(vec![free("n"), question("c", QuestionType::Single, &["A"])]);
    press(&mut s, "<Esc><S-Tab>");
    assert_eq!(flow(&s).focus(), Focus::Review);
    assert!(flow(&s).submit_blocked());
    assert_eq!(flow(&s).problem(0).as_deref(), Some("N needs an answer"));
    let review = view::build("s", &s).review.unwrap();
    let actions: Vec<(&str, &str, bool)> = review
        .actions
        .iter()
        .map(|a| (a.key.as_str(), a.label.as_str(), a.disabled))
        .collect();
    assert_eq!(
        actions,
        [
            ("1", "Send", true),
            ("2", "Decline", false),
            ("3", "Close", false)
        ]
    );
    assert_eq!(view::build("s", &s).tabs[2].label, "Send");
    let before = s.clone();
    press(&mut s, "1");
    assert_eq!(s, before);
    press(&mut s, "<Tab>7<CR>1");
    assert_eq!(flow(&s).focus(), Focus::Review);
    press(&mut s, "1");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
}

#[test]
fn decline_is_an_outcome_of_its_own() {
    let mut s = checked(vec![free("n")]);
    press(&mut s, "<Esc><Tab>2");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Declined));
    assert_eq!(
        view::build("s", &s).outcome,
        Some(askd::view::OutcomeView::Declined)
    );
    let mut s = checked(vec![free("n")]);
    s.flow_mut().unwrap().decline().unwrap();
    assert_eq!(flow(&s).outcome(), Some(Outcome::Declined));
    // A dialect without Decline refuses it.
    let mut s = open_main();
    assert_eq!(
        s.flow_mut().unwrap().decline(),
        Err(FlowError::NoDecline("pi"))
    );
}

#[test]
fn custom_rows_of_their_own_or_none() {
    let mut labelled = question("a", QuestionType::Single, &["X"]);
    labelled.custom_row = CustomRow::Labelled {
        label: "Other".to_owned(),
        description: Some("say more".to_owned()),
    };
    let mut absent = question("b", QuestionType::Multi, &["X", "Y"]);
    absent.custom_row = CustomRow::Absent;
    let s = checked(vec![labelled, absent]);
    let rows: Vec<(String, Option<String>, bool)> = view::build("s", &s)
        .question
        .unwrap()
        .rows
        .into_iter()
        .map(|r| (r.label, r.description, r.custom))
        .collect();
    assert_eq!(
        rows,
        [
            ("X".to_owned(), None, false),
            ("Other".to_owned(), Some("say more".to_owned()), true)
        ]
    );
    let mut s = s;
    press(&mut s, "<Tab>");
    assert_eq!(view::build("s", &s).question.unwrap().row_count, 2);
    let err = s
        .flow_mut()
        .unwrap()
        .save_custom("b", "7", false)
        .unwrap_err();
    assert_eq!(err, FlowError::NoCustomAnswer("\"b\"".to_owned()));
}

#[test]
fn question_notes_without_option_notes() {
    let mut s = checked(vec![question("a", QuestionType::Single, &["X"])]);
    let before = s.clone();
    press(&mut s, "n");
    assert_eq!(s, before);
    press(&mut s, "Nabc<CR>");
    assert_eq!(flow(&s).answers()[0].note.as_deref(), Some("abc"));
    assert_eq!(
        s.flow_mut().unwrap().set_note("a", Some("X"), "n"),
        Err(FlowError::NoOptionNotes("checked"))
    );
}

#[test]
fn secret_text_is_masked_and_prefilled_answers_open_the_flow() {
    let mut secret = free("pin");
    secret.secret = true;
    secret.initial = custom("42");
    let mut s = checked(vec![secret]);
    let v = view::build("s", &s);
    assert_eq!(v.requester.as_deref(), Some("tester"));
    let editor = v.editor.unwrap();
    assert_eq!((editor.text.as_str(), editor.secret), ("••", true));
    assert_eq!(flow(&s).answers()[0], custom("42"));
    press(&mut s, "<Esc>");
    assert_eq!(
        view::build("s", &s)
            .question
            .unwrap()
            .custom_text
            .as_deref(),
        Some("[hidden]")
    );
    assert!(!screen(&s, 40).contains("42"));
    assert!(screen(&s, 40).contains(" Requested by tester\n"));
}

#[test]
fn a_flow_may_have_no_questions_where_the_rules_allow() {
    let mut s = checked(Vec::new());
    assert_eq!(flow(&s).focus(), Focus::Review);
    press(&mut s, "1");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
    let spec = FlowSpec {
        title: None,
        questions: Vec::new(),
        rules: askd::dialect::pi::RULES,
        requester: None,
        source: None,
        behaviour: Default::default(),
    };
    let s = Session::from_spec(DialectId::PI, Arc::new(spec), &OpenOptions::default());
    assert_eq!(
        flow(&s).check_invariants(),
        Err("a flow needs at least one question".to_owned())
    );
}

#[test]
fn a_flow_submitted_at_its_deadline_times_out_while_the_checker_blocks_submit() {
    let at_ten_seconds = |s: &mut Session| {
        s.flow_mut().unwrap().set_deadline(Some(10_000));
    };
    // Unanswered: the checker keeps it from being submitted, so it times out.
    let mut s = checked(vec![free("n")]);
    at_ten_seconds(&mut s);
    let flow = s.flow_mut().unwrap();
    assert!(!flow.expire_submitting(9_999));
    assert!(flow.expire_submitting(10_000));
    assert_eq!(
        flow.outcome(),
        Some(Outcome::Cancelled(CancelReason::Timeout))
    );
    // Answered: submitted with what was saved.
    let mut s = checked(vec![free("n")]);
    at_ten_seconds(&mut s);
    press(&mut s, "12<CR>");
    let flow = s.flow_mut().unwrap();
    assert!(flow.expire_submitting(10_000));
    assert_eq!(flow.outcome(), Some(Outcome::Submit));
    assert_eq!(flow.answers()[0].custom_text.as_deref(), Some("12"));
    // Once done, nothing is due.
    assert!(!flow.expire_submitting(20_000));
}
