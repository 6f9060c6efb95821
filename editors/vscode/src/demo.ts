/** The payload `askd: Demo` asks: one question of each type. */
export const DEMO_PAYLOAD = {
  title: "askd demo",
  questions: [
    {
      id: "editor",
      label: "Editor",
      prompt: "Which editor do you use most?",
      options: [
        { value: "vscode", label: "VS Code (Recommended)", description: "Extensions for everything" },
        { value: "nvim", label: "Neovim", description: "Modal and scriptable" },
        { value: "helix", label: "Helix" },
      ],
    },
    {
      id: "languages",
      label: "Languages",
      prompt: "Which languages do you write this week?",
      type: "multi",
      options: [
        { value: "ts", label: "TypeScript" },
        { value: "rust", label: "Rust" },
        { value: "python", label: "Python" },
      ],
    },
    {
      id: "layout",
      label: "Layout",
      prompt: "Which window layout do you prefer?",
      type: "preview",
      options: [
        {
          value: "split",
          label: "Side by side",
          preview: "+------+------+\n| code | flow |\n+------+------+",
        },
        {
          value: "stack",
          label: "Stacked",
          preview: "+-------------+\n|    code     |\n+-------------+\n|    flow     |\n+-------------+",
        },
      ],
    },
  ],
} as const;
