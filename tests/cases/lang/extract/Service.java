package com.example.app;

import com.example.core.Repository;
import com.example.util.*;
import static com.example.core.Constants.MAX;

// import com.example.ghost.Ghost;

public class Service {
    public static final int LIMIT = 5;

    private Repository repo;

    public Service(Repository repo) {
        this.repo = repo;
    }

    public String find(String key) {
        String s = "import com.fake.Thing;";
        return repo.lookup(key);
    }
}
