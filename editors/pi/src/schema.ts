// The `ask_user` tool input of the pi ask contract, as the model sees it. Every field the
// contract requires is optional here on purpose: askd validates the payload and answers an
// invalid one with the contract's `invalid_input` result (naming each issue), which a model can
// act on, instead of pi refusing the call before the tool sees it.
import { Type } from "typebox";

const Option = Type.Object({
  value: Type.Optional(Type.String({ description: "Required. The machine-readable value the answer reports for this option" })),
  label: Type.Optional(Type.String({ description: "Required. The short text the person sees for this option" })),
  description: Type.Optional(Type.String({ description: "Optional. One line that helps the person choose" })),
  preview: Type.Optional(
    Type.String({ description: "Preview text shown beside the options; a preview question needs it on every option" }),
  ),
});

const Question = Type.Object({
  id: Type.Optional(Type.String({ description: "Required. A stable id, unique in the call: the key of this question's answer" })),
  label: Type.Optional(Type.String({ description: "A short tab label such as Scope or Naming (default: Q1, Q2, ...)" })),
  prompt: Type.Optional(Type.String({ description: "Required. The question itself, about one decision" })),
  type: Type.Optional(
    Type.String({
      description:
        'One of "single" (the default: one option), "multi" (several options) or "preview" (one option, each with preview text)',
    }),
  ),
  required: Type.Optional(Type.Boolean({ description: "Marks an important question; it never blocks submitting" })),
  options: Type.Array(Option, { description: "The options, best two to four; the person may also type an answer of their own" }),
});

export const AskUserParams = Type.Object({
  title: Type.Optional(Type.String({ description: "An optional short title above the questions" })),
  questions: Type.Array(Question, { description: "The questions, asked as tabs of one flow" }),
});

export const DESCRIPTION =
  "Ask the person structured questions when the next step depends on their preference or on something only they know, " +
  "instead of guessing. Each question offers options with a machine-readable `value`; single, multi and preview questions; " +
  "the person can also type their own answer and add notes. The result lists each answer by question id, or says that the " +
  "person cancelled or asked to elaborate.";

export const PROMPT_SNIPPET = "Ask the person a few structured questions when a decision is theirs to make";

export const PROMPT_GUIDELINES = [
  "Call ask_user before a choice that depends on the person's preference (scope, naming, UX, architecture) rather than picking one yourself.",
  "Keep an ask_user call short: one to three questions, each about one decision, with two to four options and a `value` on every option.",
  'Use ask_user `type: "preview"` only when every option carries `preview` text; descriptions do not count as previews.',
  "When an ask_user result asks to elaborate, answer the notes first, then ask again only the questions it names.",
];
