# forward_lib.sh - the history the forward channel's tests (t07, t79)
# share. Sourced after lib.sh.

# forward_history DIR: a repository in DIR (the current directory after)
# with CHANGELOG and x.txt, then three past merges on main, each with
# CHANGELOG and a file of its own changed on both sides (f<k>.txt on the
# feature branch, g<k>.txt on main); tagged `base`.
forward_history() {
    new_repo "$1"
    cd "$1"
    seq 1 30 > CHANGELOG
    seq 1 30 > x.txt
    commit 00:00 base
    for k in 1 2 3; do
        git checkout -qb "f$k"
        sed -i "1s/.*/feature $k/" CHANGELOG
        echo "$k" > "f$k.txt"
        commit "0$k:10" "feature $k"
        git checkout -q main
        sed -i "30s/.*/main $k/" CHANGELOG
        echo "$k" > "g$k.txt"
        commit "0$k:20" "main $k"
        at "0$k:30"
        git merge -q --no-ff -m "merge f$k" "f$k" > /dev/null
    done
    git tag base
}
