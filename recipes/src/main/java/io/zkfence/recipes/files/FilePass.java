package io.zkfence.recipes.files;

import java.util.List;

/**
 * What one {@link FileProcessor#processPending()} pass did.
 *
 * @param processed    files this worker processed and recorded as done
 * @param alreadyDone  files that had a completion record
 * @param claimedElsewhere files another worker was holding
 * @param lostToNewer  files whose output or completion this worker wrote too late: a newer claim
 *                     (after this worker's lease ended) got there first, and the fences rejected
 *                     this worker's writes
 * @param failed       files whose task threw; they are left for the next pass
 */
public record FilePass(
        List<String> processed,
        List<String> alreadyDone,
        List<String> claimedElsewhere,
        List<String> lostToNewer,
        List<String> failed) {

    public FilePass {
        processed = List.copyOf(processed);
        alreadyDone = List.copyOf(alreadyDone);
        claimedElsewhere = List.copyOf(claimedElsewhere);
        lostToNewer = List.copyOf(lostToNewer);
        failed = List.copyOf(failed);
    }
}
