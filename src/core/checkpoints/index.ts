export { CheckpointStore, DEFAULT_MAX_FILE_BYTES, type CheckpointStoreOptions, type Snapshot } from "./checkpoint-store";
export { Git, GitError, probeGit } from "./git";
export { describeRestore, type RestoreAction, type RestorePlan, type RestoreReport, type RestoreStep } from "./restore";
export { EMPTY_TREE } from "./shadow-repo";
export type { ChangeKind, ChangeSummary, FileChange } from "./tree-diff";
export { CHECKPOINT_CUSTOM_TYPE, SessionCheckpoints, checkpointOf, filesAt, snapshotsInSessionText, type CheckpointEntryData, type FilesAt, type SnapshotMoment } from "./session-checkpoints";
export { referencedSnapshots } from "./referenced";
export { branchNameProblem, defaultBranchName, findUserRepo, slug, UserRepoGit, worktreeFolderFor, type UserRepo } from "./user-repo";
export { forkIntoWorktree, removeWorktree, type ForkWorktree } from "./worktree-fork";
